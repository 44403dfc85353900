"""The warm backend, for the course's own code only: children are forks of a warm interpreter
(backends/forkserver.py) that has imported torch, pytest and whatever the assignment's test
files and reference import, once per assignment per grader process, instead of a fresh
sandboxed `python boot.py` each (2-6 s of CPU per child: docs/PERFORMANCE.md).

The children run the same harness (boot.py, the recording plugin, the forbidden-import hook) on
the same run folders as the host backend's, and the same runner judges them, so what they
report is what a host child reports; but they run WITHOUT the sandbox (no namespaces, uid or
cgroup: the run folder, goldens and network are reachable; only the policy's rlimits apply).
It is for the code the course itself ships: the self-test's mutants and goldens-fresh
regeneration, the no-work cases, cosmic-ray mutation testing. It is not in
`backends.REGISTRY`, so no command offers it for a submission (docs/SECURITY.md, "Warm
children"). A module any forbidden rule names is never preloaded; where the server cannot
start, the run falls back to the host backend.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from collections import OrderedDict
from pathlib import Path

from ..assignments import Assignment
from ..sandbox import Capabilities, scrubbed_env
from .base import Child, RunRequest, RunResult
from .hostbox import HostBox
from .preload import preload_list
from .runner import run_tests

SERVER = Path(__file__).with_name("forkserver.py")
READY_S = 300.0  # a server's imports on a loaded machine
MAX_SERVERS = 4  # per grader process


class ForkServer:
    """One running forkserver.py with an assignment's modules loaded."""

    def __init__(self, assignment: Assignment, env: dict[str, str]):
        self.lock = threading.Lock()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock = ours
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-B", str(SERVER), str(theirs.fileno()),
             json.dumps(preload_list(assignment))],
            pass_fds=[theirs.fileno()], env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        theirs.close()
        ready, _, _ = select.select([ours], [], [], READY_S)
        message = ours.recv(1 << 22) if ready else b""
        if not message:
            self.close()
            raise OSError("the warm interpreter did not start")
        loaded = json.loads(message)["ready"]
        outright = [r for r in assignment.forbidden if "." not in r and not r.startswith("!")]
        leaked = [m for m in loaded if m.split(".")[0] in outright]
        if leaked:
            self.close()
            raise OSError(f"its preloads load forbidden modules ({', '.join(leaked[:3])})")

    def spawn(self, boot: Path, config: Path, stdout: Path, stderr: Path, cwd: Path,
              env: dict[str, str], rlimits: list[tuple[int, int]]) -> ForkserverChild:
        request = {"boot": str(boot), "config": str(config), "stdout": str(stdout),
                   "stderr": str(stderr), "cwd": str(cwd), "env": env, "rlimits": rlimits}
        with self.lock:
            self.sock.send(json.dumps(request).encode())
            ready, _, _ = select.select([self.sock], [], [], 60)
            if not ready:
                raise OSError("the warm interpreter did not answer")
            message, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, 1)
        if not message or not fds:
            raise OSError("the warm interpreter has stopped")
        return ForkserverChild(json.loads(message)["pid"], fds[0])

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        self.sock.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class ForkserverChild:
    """A forked test process: its own session (its pid is its process group)."""

    def __init__(self, pid: int, pidfd: int):
        self.pid, self.pidfd = pid, pidfd

    def poll(self) -> int | None:
        if self.pidfd < 0:
            return 0
        ready, _, _ = select.select([self.pidfd], [], [], 0)
        return 0 if ready else None

    def kill(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.pidfd >= 0:
            select.select([self.pidfd], [], [], 5)
            os.close(self.pidfd)
            self.pidfd = -1


class WarmServers:
    """This grader process's fork servers, one per assignment, started on first use; at most
    MAX_SERVERS at once (the least recently used is stopped: each holds 0.1-0.5 GB); all stopped
    at exit (and each stops when the grader process dies: its socket closes)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.servers: OrderedDict[str, ForkServer | None] = OrderedDict()
        atexit.register(self.close)

    def get(self, assignment: Assignment) -> ForkServer | None:
        key = f"{assignment.root}:{assignment.name}"
        with self.lock:
            server = self.servers.get(key)
            if server is not None and not server.alive():
                self.servers.pop(key)
            if key not in self.servers:
                try:
                    self.servers[key] = ForkServer(assignment, scrubbed_env(Path("/nonexistent")))
                except OSError:
                    self.servers[key] = None  # not here: the host backend runs it
            self.servers.move_to_end(key)
            while len(self.servers) > MAX_SERVERS:
                _, old = self.servers.popitem(last=False)
                if old is not None:
                    old.close()  # (the self-test grades one assignment at a time)
            return self.servers[key]

    def close(self) -> None:
        with self.lock:
            for server in self.servers.values():
                if server is not None:
                    server.close()
            self.servers.clear()


class UnsandboxedWarmBox:
    """A ChildBox whose children are forks of the assignment's warm interpreter."""

    @staticmethod
    def hidden_refusal(request: RunRequest, caps: Capabilities) -> str | None:
        return None  # the course's own code: it may see its hidden goldens

    def __init__(self, run: Path, request: RunRequest, caps: Capabilities, server: ForkServer):
        self.run, self.server = run, server
        # the rlimits layer, as the host applies it (address space, CPU, file size, files): a
        # generated mutant's runaway allocation fails in its own child
        self.rlimits = [(which, value) for _, which, value
                        in request.policy.limits.rlimits(full=True, nproc=False)]

    def new_output_file(self, path: Path) -> Path:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        os.close(fd)
        return path

    def start(self, boot: Path, config: Path, writable: list[Path], forbidden: list[str],
              stdout: Path, stderr: Path) -> Child:
        return self.server.spawn(boot, config, stdout, stderr, self.run / "work",
                                 scrubbed_env(self.run), self.rlimits)

    def after_child(self) -> None:
        pass  # kill() took the child's process group down

    def close(self) -> None:
        pass


class WarmBackend:
    name = "warm"

    def __init__(self):
        self.servers = WarmServers()

    def problem(self) -> str | None:
        return None if hasattr(os, "pidfd_open") else "os.pidfd_open is missing (Linux >= 5.3)"

    def run(self, request: RunRequest) -> RunResult:
        server = self.servers.get(request.assignment) if self.problem() is None else None
        if server is None:
            return run_tests(request, HostBox)

        def box(run: Path, req: RunRequest, caps: Capabilities) -> UnsandboxedWarmBox:
            return UnsandboxedWarmBox(run, req, caps, server)

        box.hidden_refusal = UnsandboxedWarmBox.hidden_refusal
        return run_tests(request, box)


BACKEND = WarmBackend()

