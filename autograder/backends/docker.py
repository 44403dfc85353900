"""The docker backend: each graded child runs in a fresh container of the runner image
(docker/Dockerfile), started through the Docker API (Docker itself, or podman's compatible
service) with the `docker` SDK.

The run folder the host runner prepares (harness copy, staged submission, one visibility's
tests and stored inputs; never goldens) is bind-mounted read-only at its own path; only the
events file is writable; scratch is tmpfs. The child's view of the packages (what a dotted
forbidden rule names replaced, sandbox/view.py) is bound over the image's site-packages
(`image_view`), and so are the stubs that hide what a top-level rule forbids (`image_masks`),
and an empty folder over every other site folder of the image (`image_foreign_site_dirs`: the
image's own interpreter's, Debian's). The container has no network, no capabilities,
no-new-privileges, the sandbox's seccomp filter (sandbox/seccomp.py as a profile), a read-only
root, an unprivileged uid of its own, and memory/pids/CPU/file limits.
The runner keeps every deadline: at a timeout it kills and removes the container (the SDK's
wait timeout would not stop it). What comes back is the same JSON-lines events file the host
child writes, read and judged by the parent exactly as on the host.

Environment: DOCKER_HOST (default: the SDK's default socket); AUTOGRADER_DOCKER_IMAGE (default
IMAGE below). `--gpus all` (Placement.gpus, carried as RunRequest.gpus) passes the GPUs through device_requests.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
from pathlib import Path

from .. import settings
from ..sandbox import Capabilities, scrubbed_env, seccomp
from ..sandbox.view import child_view, import_dirs
from .base import BackendError, RunRequest, RunResult
from .runner import run_tests

IMAGE = "localhost/training-systems-runner:cpu"
PYTHON = "/opt/runner/venv/bin/python3"
# the image declares USER 10001; each run folder's containers run as a uid of their own instead
UID_BASE, UID_SPAN = 20000, 40000  # the uids containers run as: UID_BASE .. UID_BASE + UID_SPAN - 1


def container_user(run: str, child: int) -> str:
    """The uid:gid the run folder's `child`-th container runs as. RLIMIT_NPROC counts the
    processes of a uid kernel-wide, so with one shared uid a student's fork bomb (bounded by its
    own pids_limit) used up the nproc ulimit of a classmate's container beside it, which then
    could not start a thread. A uid per container (from the run folder's unique path and the
    child's number; two live containers share one with probability 1/UID_SPAN) keeps each
    container's nproc its own, and the next child of a run under another uid; what a uid could
    keep in the kernel past its container (a keyring) the seccomp filter refuses. The run folder
    is world-readable and its output files world-writable (ContainerBox), so any uid works."""
    digest = hashlib.sha256(f"{run}\0{child}".encode()).hexdigest()
    uid = UID_BASE + int(digest, 16) % UID_SPAN
    return f"{uid}:{uid}"
CPUS = 2.0
TRIES = 5  # an engine call answered with a server error (`transient`)
REMOVE_S = 60.0  # how long `remove` keeps trying a container the engine will not remove yet
RUN_LABEL = "org.training-systems.run"  # each graded container's label: its run folder
FACTS_S = 120  # the image-facts container's run


IMAGE_FACTS = """
import importlib.metadata, json, os, sys, sysconfig
versions = {}
for name in json.loads(sys.argv[1]):
    try:
        versions[name] = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        pass
site = sysconfig.get_paths()["purelib"]
foreign = []
for root, dirs, _ in os.walk("/"):
    if root.startswith(("/proc", "/sys", "/dev")):
        dirs[:] = []
    for name in [d for d in dirs if d in ("site-packages", "dist-packages")]:
        dirs.remove(name)
        if os.path.realpath(os.path.join(root, name)) != os.path.realpath(site):
            foreign.append(os.path.join(root, name))
print(json.dumps({"site": site, "versions": versions, "foreign_site": sorted(foreign),
                  "entries": sorted(os.listdir(site))}))
"""


@functools.lru_cache(maxsize=8)
def image_facts(image: str, packages: tuple[str, ...]) -> dict:
    """The image's site-packages folder, its entries, the installed version of each of
    `packages` it has, and every other site-packages or dist-packages folder in it (one short
    container, once per grader process and image)."""
    client = _client()
    container = None
    try:
        container = client.containers.create(
            image, [PYTHON, "-I", "-c", IMAGE_FACTS, json.dumps(packages)], network_mode="none",
            read_only=True, cap_drop=["ALL"], security_opt=["no-new-privileges"])
        container.start()
        status = container.wait(timeout=FACTS_S).get("StatusCode")
        if status != 0:  # its stderr's last line says why (an image without its venv: no python)
            err = transient(lambda: container.logs(stdout=False, stderr=True))
            last = (err.decode(errors="replace").strip().splitlines() or ["no output"])[-1]
            raise BackendError(f"its container exited with {status}: {last}")
        out = transient(lambda: container.logs(stdout=True, stderr=False))
        return json.loads(out.decode().strip().splitlines()[-1])
    except Exception as e:  # noqa: BLE001 - without the facts, no view: never run viewless
        raise BackendError(f"cannot read the runner image's packages ({type(e).__name__}: "
                           f"{str(e)[:200]})") from e
    finally:
        if container is not None:
            remove(container)
        client.close()


def image_view(rules: list[str]) -> list[tuple[str, str]]:
    """The child's view of the packages (sandbox/view.py: what a dotted forbidden rule names
    does not exist) as container bind mounts: each replacement generated on this machine,
    bound over the same file of the image's site-packages. The image installs the same pinned
    wheels (docker/requirements.txt is pyproject's pins: test_docker), so a replacement made
    from this machine's file is one of the image's file. A package a rule names must be the
    same version in the image (else BackendError: rebuild the image), or absent from it (then
    nothing of it is there to find)."""
    import importlib.metadata

    placed = _in_site_packages(child_view(rules).mounts, strict=True)
    if not placed:
        return []
    tops = tuple(sorted({rel.split("/")[0] for _, rel in placed}))
    facts = image_facts(image_name(), tops)
    out = []
    for source, rel in placed:
        top = rel.split("/")[0]
        if top not in facts["versions"]:
            continue  # the image does not install it
        here = importlib.metadata.version(top)
        if facts["versions"][top] != here:
            raise BackendError(f"the runner image has {top} {facts['versions'][top]}, this "
                               f"machine {here}: its view of the packages cannot be built "
                               "(rebuild it: make docker-cpu)")
        out.append((source, f"{facts['site'].rstrip('/')}/{rel}"))
    return out


def image_foreign_site_dirs() -> list[str]:
    """The runner image's site folders other than its venv's (the base interpreter's, Debian's):
    each is covered by an empty folder in the child's container, as on the host
    (sandbox/installations.py)."""
    return image_facts(image_name(), ())["foreign_site"]


def image_masks(rules: list[str], masks_dir: Path) -> list[tuple[str, str]]:
    """Bind mounts hiding each module a top-level rule forbids from the image's
    site-packages, as bubblewrap hides it on the host (sandbox/bwrap.py's stubs, written under
    `masks_dir`): the image installs what the child imports, and with it modules some
    assignment forbids (transformers brings tokenizers, which bpe forbids). A forbidden
    module of the standard library is refused by the harness' import hook alone here."""
    from ..sandbox.bwrap import mask_mounts

    top = [r for r in rules if "." not in r and not r.startswith("!")]
    placed = _in_site_packages(mask_mounts(top, masks_dir), strict=False)
    if not placed:
        return []
    facts = image_facts(image_name(), ())
    return [(source, f"{facts['site'].rstrip('/')}/{rel}") for source, rel in placed
            if rel in facts["entries"]]


def _in_site_packages(mounts: list[tuple[str, str]], strict: bool) -> list[tuple[str, str]]:
    """(source, target relative to its site-packages folder) of each mount whose target lies
    in one of this machine's site-packages; a target elsewhere is an error (`strict`) or
    left out."""
    dirs = [d.rstrip("/") for d in import_dirs()]
    placed: list[tuple[str, str]] = []
    for source, target in mounts:
        base = max((d for d in dirs if target.startswith(d + "/")), key=len, default=None)
        if base is None or "site-packages" not in base:
            if strict:
                raise BackendError(f"the view replaces {target}, outside site-packages")
            continue
        placed.append((source, target[len(base) + 1:]))
    return placed


def transient(call, tries: int = TRIES):
    """`call()`, again (up to `tries` times, 0.2 s apart) while the engine answers a server
    error: podman inspects a container that is exiting by reading its process's /proc files,
    and answers 500 ("read /proc/N/cgroup: no such process") when that process has just gone
    (seen in a full `make test`, from docker-py's logs(), which inspects first). A client error
    (404: no such container) is an answer and is raised at once."""
    from docker.errors import APIError

    for _ in range(tries - 1):
        try:
            return call()
        except APIError as e:
            if not e.is_server_error():
                raise
            time.sleep(0.2)
    return call()  # the last try: its error, whatever it is, is the answer


def remove(container, within_s: float = REMOVE_S) -> None:
    """Remove `container` (force: running or not). "No such container" is done. Any other
    failure (podman may still be tearing it down; a loaded engine answers late) is tried again,
    0.2-2 s apart, for `within_s` seconds: five tries in one second left a container behind
    in a full, loaded `make test`. Past that it is left to the engine's own cleanup, or
    `make clean`."""
    from docker.errors import NotFound

    deadline, pause = time.monotonic() + within_s, 0.2
    while True:
        try:
            container.remove(force=True)
            return
        except NotFound:
            return
        except Exception:  # noqa: BLE001 - retry: podman may still be tearing it down
            if time.monotonic() + pause > deadline:
                return
            time.sleep(pause)
            pause = min(2 * pause, 2.0)


def _client():
    import docker

    return docker.DockerClient(base_url=settings.DOCKER_HOST.value() or None, timeout=120)


def image_name() -> str:
    return settings.DOCKER_IMAGE.value() or IMAGE


def seccomp_option(client) -> str:
    """The `security_opt` entry that puts the sandbox's filter in place of the engine's default
    profile: Docker's API takes the profile itself, podman's compatible service a file it
    reads (written once per profile under the cache folder)."""
    profile = seccomp.docker_profile()
    try:
        names = [c.get("Name", "") for c in client.version().get("Components", [])]
    except Exception:  # noqa: BLE001 - no version: Docker's form
        names = []
    if not any("podman" in n.lower() for n in names):
        return f"seccomp={profile}"
    from .docker_image import cache_dir

    path = cache_dir() / f"seccomp-{hashlib.sha256(profile.encode()).hexdigest()[:16]}.json"
    if not path.exists():
        made = path.with_name(f"{path.name}.{os.getpid()}")
        made.write_text(profile)
        os.replace(made, path)
    return f"seccomp={path}"


class ContainerChild:
    """One container: `poll()` is its exit code once it stopped; `kill()` kills and removes
    it, after copying its output into the run folder's stdout/stderr files."""

    def __init__(self, container, stdout: Path, stderr: Path):
        self.container, self.stdout, self.stderr = container, stdout, stderr
        self.code: int | None = None
        self.removed = False

    def poll(self) -> int | None:
        if self.code is not None:
            return self.code
        from docker.errors import APIError

        try:
            transient(self.container.reload)
        except APIError as e:
            if e.is_server_error():
                return None  # the engine cannot say yet: the runner polls again, to its deadline
            self.code = -1  # gone: it cannot run any more
            return self.code
        except Exception:  # noqa: BLE001 - no answer at all: it cannot be run any more
            self.code = -1
            return self.code
        if self.container.status in ("exited", "dead", "stopped"):
            self.code = int(self.container.attrs.get("State", {}).get("ExitCode", -1))
        return self.code

    def kill(self) -> None:
        if self.removed:
            return
        self.removed = True
        try:
            if self.poll() is None:
                self.container.kill()
        except Exception:  # noqa: BLE001 - already stopped
            pass
        try:
            self.stdout.write_bytes(transient(
                lambda: self.container.logs(stdout=True, stderr=False))[-2**20:])
            self.stderr.write_bytes(transient(
                lambda: self.container.logs(stdout=False, stderr=True))[-2**20:])
        except Exception:  # noqa: BLE001 - no logs: the tail is empty
            pass
        remove(self.container)


class ContainerBox:
    """A run folder whose children are containers (a `base.ChildBox`)."""

    @staticmethod
    def hidden_refusal(request: RunRequest, caps: Capabilities) -> str | None:
        """Never: a container mounts only its run folder, so goldens are never inside it."""
        return None

    def __init__(self, run: Path, request: RunRequest, caps: Capabilities):
        self.run, self.request = run, request
        self.children = 0
        rules = list(request.assignment.forbidden)
        self.view = image_view(rules) + image_masks(rules, run / ".masks")
        self.hidden = image_foreign_site_dirs()
        self.empty = run / ".empty"
        self.empty.mkdir(exist_ok=True)
        self.client = _client()
        self.seccomp = seccomp_option(self.client)
        # the container's unprivileged user must read the run folder (it holds no secret:
        # harness, tests and inputs of one visibility, the student's own code)
        for path in [run, *run.rglob("*")]:
            if not path.is_symlink():
                os.chmod(path, 0o755 if path.is_dir() else 0o644)

    def new_output_file(self, path: Path) -> Path:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
        os.close(fd)
        os.chmod(path, 0o666)
        return path

    def start(self, boot: Path, config: Path, writable: list[Path], forbidden: list[str],
              stdout: Path, stderr: Path) -> ContainerChild:
        from docker.types import DeviceRequest, Mount, Ulimit

        limits = self.request.policy.limits
        run = str(self.run)
        mounts = [Mount(target=run, source=run, type="bind", read_only=True)]
        mounts += [Mount(target=str(w), source=str(w), type="bind", read_only=False)
                   for w in writable]
        mounts += [Mount(target=target, source=source, type="bind", read_only=True)
                   for source, target in self.view]
        mounts += [Mount(target=target, source=str(self.empty), type="bind", read_only=True)
                   for target in self.hidden]
        scratch = f"size={limits.scratch},mode=1777"
        gpus = self.request.gpus
        self.children += 1
        container = self.client.containers.create(
            image_name(), [PYTHON, "-I", "-B", str(boot), str(config)],
            detach=True, network_mode="none", user=container_user(run, self.children),
            working_dir=f"{run}/work",
            environment=scrubbed_env(self.run, self.request.policy.kernels), mounts=mounts,
            read_only=True,
            tmpfs={"/tmp": "size=64m,mode=1777", f"{run}/work": scratch,
                   f"{run}/tmp": scratch, "/dev/shm": f"size={limits.shm},mode=1777"},
            cap_drop=["ALL"], security_opt=["no-new-privileges", self.seccomp],
            mem_limit=limits.memory,
            memswap_limit=limits.memory, pids_limit=limits.pids, nano_cpus=int(CPUS * 1e9),
            ulimits=[Ulimit(name="core", soft=0, hard=0),
                     Ulimit(name="fsize", soft=limits.file_size, hard=limits.file_size),
                     Ulimit(name="nofile", soft=limits.open_files, hard=limits.open_files),
                     Ulimit(name="nproc", soft=limits.processes, hard=limits.processes)],
            device_requests=[DeviceRequest(count=-1 if gpus == "all" else int(gpus),
                                           capabilities=[["gpu"]])] if gpus else None,
            labels={RUN_LABEL: run},
            stdin_open=False, tty=False)
        child = ContainerChild(container, stdout, stderr)
        try:
            container.start()
        except BaseException:
            child.kill()  # created but never started: remove it, then report the failure
            raise
        return child

    def after_child(self) -> None:
        pass  # the container, and everything in it, is gone with kill()

    def close(self) -> None:
        """End the run's containers, then the client: each child removes its own container
        with kill(), and whatever is left under this run's label (a create the engine carried
        out after the client gave up on it, a remove it kept refusing) is removed here, so no
        container outlives its run folder."""
        try:
            left = self.client.api.containers(
                all=True, filters={"label": f"{RUN_LABEL}={self.run}"})
            for found in left:
                remove(self.client.containers.prepare_model(found))
        except Exception:  # noqa: BLE001 - no engine to ask: nothing more this run can do
            pass
        finally:
            self.client.close()


class DockerBackend:
    name = "docker"

    def problem(self) -> str | None:
        try:
            client = _client()
        except Exception as e:  # noqa: BLE001 - any failure: explain it
            return f"no Docker API ({type(e).__name__}: {e}); set DOCKER_HOST"
        try:
            client.ping()
            client.images.get(image_name())
        except Exception as e:  # noqa: BLE001
            return (f"{type(e).__name__}: {str(e)[:200]} (is the engine running at "
                    f"DOCKER_HOST={settings.DOCKER_HOST.value() or 'default'}, and was the "
                    f"image built with `make docker-cpu`?)")
        finally:
            client.close()
        return None

    def run(self, request: RunRequest) -> RunResult:
        return run_tests(request, make_box=ContainerBox)


BACKEND = DockerBackend()
