"""Building the runner images and serving the Docker API with podman, for `make docker-cpu`,
`make docker-gpu` and the docker backend's self-test.

Everything is cached under CACHE (AUTOGRADER_CACHE, default ~/.cache/training-systems): the
debootstrapped base, the wheels, podman's storage. An image carries a label with the hash of
what built it (Dockerfile, requirements, base), so a rebuild happens only when that changes.
One build of a kind runs at a time on a machine (a flock in CACHE): a process that finds another
building waits for it, then finds its image (the self-test's workers share one build).
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .. import settings

ROOT = Path(__file__).resolve().parents[2]
DOCKER_DIR = ROOT / "docker"
LOCAL_BASE = "localhost/training-systems-base:bookworm"
PUBLIC_BASE = "python:3.11-slim-bookworm"
LABEL = "org.training-systems.context"
CONTAINERS_CONF = """[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
netns = "none"
"""


def cache_dir() -> Path:
    d = settings.path(settings.CACHE)
    d.mkdir(parents=True, exist_ok=True)
    return d


def podman_problem() -> str | None:
    """Why podman cannot serve containers here (None: it can)."""
    if shutil.which("podman") is None:
        return "podman is not installed (apt-get install podman runc)"
    if shutil.which("runc") is None:
        return "runc is not installed (apt-get install runc)"
    return None


class Podman:
    """podman with this project's storage and configuration (command-line flags: a storage
    config file made every run take 20 s here)."""

    def __init__(self, cache: Path | None = None):
        self.cache = cache or cache_dir()
        self.conf = self.cache / "containers.conf"
        if not self.conf.exists() or self.conf.read_text() != CONTAINERS_CONF:
            self.conf.write_text(CONTAINERS_CONF)
        self.env = settings.inherited_environment(CONTAINERS_CONF=str(self.conf))
        self.argv = ["podman", "--root", str(self.cache / "podman" / "root"), "--runroot",
                     str(self.cache / "podman" / "runroot"), "--storage-driver", "overlay"]

    def run(self, *args: str, **kw) -> subprocess.CompletedProcess:
        return subprocess.run([*self.argv, *args], env=self.env, check=True, **kw)

    def has_image(self, tag: str) -> bool:
        return subprocess.run([*self.argv, "image", "exists", tag], env=self.env,
                              check=False).returncode == 0


class PodmanService:
    """`podman system service` on a private socket, for the duration of a `with` block;
    `.url` is the DOCKER_HOST to use."""

    def __init__(self, podman: Podman | None = None):
        self.podman = podman or Podman()
        self.dir = Path(tempfile.mkdtemp(prefix="podman-api-"))
        self.url = f"unix://{self.dir / 'api.sock'}"
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> PodmanService:
        self.proc = subprocess.Popen([*self.podman.argv, "system", "service", "--time=0",
                                      self.url], env=self.podman.env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(str(self.dir / "api.sock"))
                return self
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.1)
        self.__exit__()
        raise RuntimeError("podman system service did not start")

    def __exit__(self, *exc) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def local_base(podman: Podman) -> str:
    """A Debian bookworm base image made here (debootstrap minbase, then podman import), for
    machines that reach Debian's packages but no image registry."""
    if podman.has_image(LOCAL_BASE):
        return LOCAL_BASE
    rootfs = podman.cache / "rootfs-bookworm"
    if not (rootfs / "etc" / "debian_version").exists():
        if shutil.which("debootstrap") is None:
            raise RuntimeError("debootstrap is not installed (apt-get install debootstrap)")
        shutil.rmtree(rootfs, ignore_errors=True)
        subprocess.run(["debootstrap", "--variant=minbase", "bookworm", str(rootfs)],
                       check=True, stdout=subprocess.DEVNULL)
    tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
    podman.run("import", "-", LOCAL_BASE, stdin=tar.stdout, stdout=subprocess.DEVNULL)
    tar.wait()
    return LOCAL_BASE


def wheels(requirements: Path, extra_pip_args: list[str] = ()) -> Path:
    """The pinned wheels of `requirements`, downloaded once into the cache (pip takes torch's
    CPU wheel from wherever this machine's pip finds it)."""
    key = hashlib.sha256(requirements.read_bytes() + " ".join(extra_pip_args).encode())
    dest = cache_dir() / "wheels" / key.hexdigest()[:16]
    if not (dest / ".complete").exists():
        dest.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet",
                        "--disable-pip-version-check", "--only-binary=:all:", "-d", str(dest),
                        "-r", str(requirements), *extra_pip_args], check=True)
        (dest / ".complete").write_text("")
    return dest


WARM_BYTECODE = ROOT / ".ci" / "warm_bytecode.py"  # run in the image's build, as at setup


def context_hash(dockerfile: Path, requirements: Path, base: str) -> str:
    h = hashlib.sha256()
    for part in (dockerfile.read_bytes(), requirements.read_bytes(), WARM_BYTECODE.read_bytes(),
                 base.encode()):
        h.update(part)
        h.update(b"\0")
    return h.hexdigest()[:16]


def build_runner(podman: Podman, kind: str = "cpu", base: str | None = None,
                 tag: str | None = None) -> str:
    """Build (or find, when its context is unchanged) the runner image; returns its tag. One
    build per kind at a time: a concurrent caller waits for it, then finds its image."""
    with open(podman.cache / f"build-{kind}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_runner(podman, kind, base, tag)


def _build_runner(podman: Podman, kind: str, base: str | None, tag: str | None) -> str:
    dockerfile = DOCKER_DIR / ("Dockerfile" if kind == "cpu" else "Dockerfile.gpu")
    requirements = DOCKER_DIR / "requirements.txt"
    tag = tag or f"localhost/training-systems-runner:{kind}"
    base = base or (local_base(podman) if kind == "cpu" else PUBLIC_BASE)
    digest = context_hash(dockerfile, requirements, base)
    if podman.has_image(tag):
        found = subprocess.run([*podman.argv, "image", "inspect", "--format",
                                "{{index .Labels \"" + LABEL + "\"}}", tag], env=podman.env,
                               capture_output=True, text=True, check=False).stdout.strip()
        if found == digest:
            return tag
    # cpu: pip takes torch 2.13.0+cpu from this machine's wheel; gpu: on a machine whose index
    # serves the default (CUDA) torch wheels, the same pin brings torch's CUDA build and the
    # nvidia-* wheels it requires (several GB)
    wheel_dir = wheels(requirements, [] if kind == "cpu" else ["--platform", "manylinux_2_28_x86_64"])
    with tempfile.TemporaryDirectory(prefix="runner-context-") as ctx:
        shutil.copy(dockerfile, Path(ctx) / "Dockerfile")
        shutil.copy(requirements, Path(ctx) / "requirements.txt")
        shutil.copy(WARM_BYTECODE, Path(ctx) / "warm_bytecode.py")
        shutil.copytree(wheel_dir, Path(ctx) / "wheels", ignore=shutil.ignore_patterns(".complete"))
        podman.run("build", "--format", "docker", "--network", "host", "--build-arg", f"BASE={base}", "--label",
                   f"{LABEL}={digest}", "-t", tag, ctx, stdout=subprocess.DEVNULL)
    return tag
