"""The docker backend: each graded child runs in a fresh container of the runner image
(docker/Dockerfile), started through the Docker API (Docker itself, or podman's compatible
service) with the `docker` SDK.

The run folder the host runner prepares (harness copy, staged submission, one visibility's
tests and stored inputs; never goldens) is bind-mounted read-only at its own path; only the
events file is writable; scratch is tmpfs. The child's view of the packages (what a dotted
forbidden rule names replaced, sandbox/view.py) is bound over the image's site-packages
(`image_view`), and so are the stubs that hide what a top-level rule forbids (`image_masks`),
and an empty folder over every other site folder of the image (`image_foreign_site_dirs`: the
image's own interpreter's, Debian's); these mounts are backends/docker_view.py's, and the
engine calls that outlast podman's races backends/docker_calls.py's. The container has no
network, no capabilities, no-new-privileges, the sandbox's seccomp filter (sandbox/seccomp.py
as a profile), a read-only root, an unprivileged uid of its own, and memory/pids/CPU/file
limits.
The runner keeps every deadline: at a timeout it kills and removes the container (the SDK's
wait timeout would not stop it). What comes back is the same JSON-lines events file the host
child writes, read and judged by the parent exactly as on the host.

Environment: DOCKER_HOST (default: the SDK's default socket); AUTOGRADER_DOCKER_IMAGE (default
docker_calls.IMAGE). `--gpus all` (Placement.gpus, carried as RunRequest.gpus) passes the GPUs through device_requests.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from .. import settings
from ..sandbox import Capabilities, scrubbed_env, seccomp
from .base import RunRequest, RunResult
from .docker_calls import PYTHON, client, image_name, remove, transient
from .docker_view import image_foreign_site_dirs, image_masks, image_view
from .runner import run_tests

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
RUN_LABEL = "org.training-systems.run"  # each graded container's label: its run folder


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
        self.client = client()
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
            engine = client()
        except Exception as e:  # noqa: BLE001 - any failure: explain it
            return f"no Docker API ({type(e).__name__}: {e}); set DOCKER_HOST"
        try:
            engine.ping()
            engine.images.get(image_name())
        except Exception as e:  # noqa: BLE001
            return (f"{type(e).__name__}: {str(e)[:200]} (is the engine running at "
                    f"DOCKER_HOST={settings.DOCKER_HOST.value() or 'default'}, and was the "
                    f"image built with `make docker-cpu`?)")
        finally:
            engine.close()
        return None

    def run(self, request: RunRequest) -> RunResult:
        return run_tests(request, make_box=ContainerBox)


BACKEND = DockerBackend()
