"""The host backend's warm path: each graded child is a fork of a zygote (backends/zygote.py)
that enters the sandbox bubblewrap builds for it, instead of a fresh `python -I -B boot.py`
(SPEC §3, "Warm children enter a sandbox; they never build one").

Per child, `WarmBox` starts the whole cold chain (the same `RunSandbox.command`: cgroup,
rlimits, bwrap with the same mounts, masks and namespaces, the slot uid) around a tiny holder
(a shell that ends with the grader: holder.py), opens the holder's namespaces and root, and
hands them with the child's stdout and stderr to the zygote, whose fork enters the sandbox
(zygote.py). Killing the holder tears its namespaces down; `after_child` kills the cgroup and
the uid as the cold path does. A zygote is what it imports (what `preload.preload_list` names)
through the children's view of the assignment's forbidden rules (sandbox/view.py), with its
children's numeric kernels (the policy's `Kernels`: torch and OpenBLAS read some of their
variables when they load, so the zygote starts with the environment its children get): one per
distinct triple of those in a grader process (assignments of any course that share all three
share it: it holds nothing of theirs), started on first use, recycled after MAX_FORKS forks.

`WarmZygotes.factory` answers the box class to use for a request: `WarmBox`, or None (the cold
chain: `HostBox`) where the deployment switch (`TRAINING_SYSTEMS_WARM=0`, settings.py) forces cold, isolation is off,
there is no namespaces layer, the one-time probe (a child that enters a holder's sandbox)
fails here, or it is the process's first request for the assignment and has a lone child (a
check's public tests, golden generation; a graded run's public child has its hidden one): a
zygote's imports cost a cold child's, so it pays off from its second child.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path

from ..assignments import Assignment
from ..sandbox import (
    DEFAULT_KERNELS,
    Capabilities,
    IsolationMode,
    Kernels,
    RunSandbox,
    SandboxPolicy,
    capabilities,
    scrubbed_env,
    seccomp,
)
from ..sandbox.view import child_view
from ..settings import WARM
from .base import Child, RunMode, RunPath, RunRequest
from .holder import HOLDER_S, holder_fds, start_holder
from .hostbox import HostBox, kill_group
from .preload import preload_list

ZYGOTE = Path(__file__).with_name("zygote.py")
READY_S = 300.0  # a zygote's imports on a loaded machine
MAX_FORKS = 256  # then the zygote is replaced (bounded drift of its state)
MAX_ZYGOTES = 8  # per grader process: about one per assignment of the course (0.1-0.5 GB each)
ANSWER_S = 20.0  # a zygote's fork answer; past it the zygote is stopped and replaced
ZYGOTE_ENV = {"TOKENIZERS_PARALLELISM": "false"}


def warm_path_allowed() -> bool:
    """Whether the deployment lets graded children be zygote forks (settings.WARM: 0, off,
    false or no turn the warm path off)."""
    return WARM.value().lower() not in ("0", "off", "false", "no")


class Zygote:
    """One running zygote.py with an assignment's third-party modules loaded."""

    def __init__(self, preloads: list[str], forbidden: tuple[str, ...] = (),
                 mounts: tuple[tuple[str, str], ...] = (), kernels: Kernels = DEFAULT_KERNELS):
        self.lock = threading.Lock()
        self.forks = 0
        self.mounts = mounts  # the view it imported through: its children's
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock = ours
        env = {**scrubbed_env(Path("/nonexistent"), kernels), **ZYGOTE_ENV}
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-B", str(ZYGOTE), str(theirs.fileno()), json.dumps(preloads),
             json.dumps(mounts)],
            pass_fds=[theirs.fileno()], env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        theirs.close()
        ready, _, _ = select.select([ours], [], [], READY_S)
        message = ours.recv(1 << 22) if ready else b""
        if not message:
            self.close()
            raise OSError("the zygote did not start")
        hello = json.loads(message)
        self.loaded, self.fds = hello["ready"], hello["fds"]
        outright = [r for r in forbidden if "." not in r and not r.startswith("!")]
        leaked = [m for m in self.loaded if m.split(".")[0] in outright]
        if leaked or hello["threads"] != 1:
            self.close()
            raise OSError(f"the zygote is not clean ({hello['threads']} threads, "
                          f"forbidden modules {leaked[:3]})")

    def spawn(self, request: dict, fds: list[int]) -> WarmChild:
        with self.lock:
            self.forks += 1
            self.sock.sendmsg([json.dumps(request).encode()],
                              [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                b"".join(fd.to_bytes(4, sys.byteorder) for fd in fds))])
            ready, _, _ = select.select([self.sock], [], [], ANSWER_S)
            if not ready:  # stopped or stuck: never wait on it again
                self.proc.kill()
                raise OSError("the zygote did not answer")
            message, got, _, _ = socket.recv_fds(self.sock, 1 << 16, 1)
        if not message or not got:
            raise OSError("the zygote refused or stopped: "
                          + (json.loads(message).get("error", "?") if message else "closed"))
        return WarmChild(json.loads(message)["pid"], got[0])

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self, kill: bool = False) -> None:
        """Close its socket: it exits once the children it forked have ended; with `kill`
        (the grader process is ending), at once, even if stopped."""
        self.sock.close()
        if kill:
            self.proc.kill()
        threading.Thread(target=self.proc.wait, daemon=True).start()


class WarmChild:
    """A fork of the zygote (its own session) and the holder whose sandbox it entered. Its
    exit status is the zygote's to read: `poll` says only whether it ended."""

    status_known = False

    def __init__(self, pid: int, pidfd: int):
        self.pid, self.pidfd = pid, pidfd
        self.holder: subprocess.Popen | None = None

    def poll(self) -> int | None:
        return 0 if self.pidfd < 0 or select.select([self.pidfd], [], [], 0)[0] else None

    def kill(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.holder is not None:
            kill_group(self.holder)  # its PID namespace goes, and whatever ran in it
        if self.pidfd >= 0:
            select.select([self.pidfd], [], [], 5)
            os.close(self.pidfd)
            self.pidfd = -1


class WarmBox(HostBox):
    """A ChildBox whose children are zygote forks entering a holder's sandbox (HostBox's
    RunSandbox: same slot, cgroup and bwrap arguments). `paths` records which path each child
    took ("cold" where the zygote refused one: that child ran the cold chain)."""

    def __init__(self, run: Path, request: RunRequest, caps: Capabilities, zygote: Zygote):
        super().__init__(run, request, caps)
        self.zygote = zygote
        self.kernels = request.policy.kernels  # the zygote's: its children's environment
        self.paths: list[RunPath] = []
        limits, sandbox = request.policy.limits, self.sandbox
        self.rlimits = [(which, value) for _, which, value
                        in limits.rlimits(full=caps.rlimits, nproc=sandbox.slot is not None)]

    def start(self, boot: Path, config: Path, writable: list[Path], forbidden: list[str],
              stdout: Path, stderr: Path) -> Child:
        try:
            child = self._start_warm(boot, config, writable, forbidden, stdout, stderr)
        except OSError:
            self.sandbox.after_child()
            self.paths.append(RunPath.COLD)
            return super().start(boot, config, writable, forbidden, stdout, stderr)
        self.paths.append(RunPath.WARM)
        return child

    def _start_warm(self, boot: Path, config: Path, writable: list[Path], forbidden: list[str],
                    stdout: Path, stderr: Path) -> WarmChild:
        sandbox = self.sandbox
        holder, pid = start_holder(sandbox, writable, forbidden)
        fds: list[int] = []
        try:
            names, ns = holder_fds(pid)
            fds = [os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
                   for p in (stdout, stderr)] + ns
            slot = sandbox.slot
            request = {"boot": str(boot), "config": str(config), "workdir": str(self.run / "work"),
                       "env": scrubbed_env(self.run, self.kernels),
                       "rlimits": self.rlimits,
                       "cgroup": [str(d / "cgroup.procs") for d in
                                  (sandbox.cgroup.dirs if sandbox.cgroup else [])],
                       "uid": slot.uid if slot else None, "gid": slot.gid if slot else None,
                       "ns": names, "seccomp": seccomp.program().hex()}
            child = self.zygote.spawn(request, fds)
        except BaseException:
            kill_group(holder)
            raise
        finally:
            for fd in fds:
                os.close(fd)
        child.holder = holder
        return child


# (what it imports, the forbidden rules, its children's kernels)
ZygoteKey = tuple[tuple[str, ...], tuple[str, ...], Kernels]


class WarmZygotes:
    """This grader process's zygotes, one per ZygoteKey, started on first use; at most
    MAX_ZYGOTES at once (least recently used replaced), each replaced after MAX_FORKS forks;
    all closed at exit (each also ends when the grader process dies: its socket closes)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.zygotes: OrderedDict[ZygoteKey, Zygote | None] = OrderedDict()
        self.starting: dict[ZygoteKey, threading.Lock] = {}  # held while that zygote imports
        self.asked: set[ZygoteKey] = set()  # zygotes a run was asked for
        self.keys: dict[tuple, ZygoteKey] = {}  # (course root, assignment, rules): its key
        atexit.register(self.close)

    def key(self, assignment: Assignment, kernels: Kernels = DEFAULT_KERNELS) -> ZygoteKey:
        """What `assignment`'s zygote for children with `kernels` is made of: the modules it
        imports, the forbidden rules its view enforces and the kernels. The rules are read
        every time (changed rules: another zygote, so nothing newly forbidden stays in
        memory); the imports once per course folder, assignment and rules in this process (an
        import added to a course's tests meanwhile is not preloaded: its children import it
        themselves)."""
        rules = tuple(sorted(set(assignment.forbidden)))
        where = (assignment.root, assignment.name, rules)
        with self.lock:
            known = self.keys.get(where)
        if known is None:
            known = (tuple(preload_list(assignment)), rules)
            with self.lock:
                self.keys[where] = known
        return (*known, kernels)

    def get(self, assignment: Assignment, start: bool = True,
            kernels: Kernels = DEFAULT_KERNELS) -> Zygote | None:
        """The assignment's zygote for children with `kernels`; with `start` False, only one
        already running. Different zygotes start at the same time; each, once."""
        key = self.key(assignment, kernels)
        with self.lock:
            starting = self.starting.setdefault(key, threading.Lock())
        with starting:
            with self.lock:
                zygote = self.zygotes.get(key)
                if zygote is not None and (not zygote.alive() or zygote.forks >= MAX_FORKS):
                    zygote.close()
                    self.zygotes.pop(key)
                if key in self.zygotes:
                    self.zygotes.move_to_end(key)
                if key in self.zygotes or not start:
                    return self.zygotes.get(key)
            try:
                preloads, forbidden, _ = key
                made = Zygote(list(preloads), forbidden, child_view(list(forbidden)).mounts,
                              kernels)
            except OSError:
                made = None  # not here: the cold chain runs it
            with self.lock:
                self.zygotes[key] = made
                while len(self.zygotes) > MAX_ZYGOTES:
                    _, old = self.zygotes.popitem(last=False)
                    if old is not None:
                        old.close()
                return made

    def factory(self, request: RunRequest):
        """The box class for `request`'s children: a WarmBox factory, or None (cold)."""
        caps = capabilities(request.policy)
        if not warm_path_allowed() or request.policy.mode == IsolationMode.NONE or not caps.namespaces:
            return None
        # a zygote pays off from its second child (a grading's reference run on its draw has
        # the student's children after it; a public child, its hidden one): a process's first
        # lone child of an assignment (`check`, goldens) starts cold
        kernels = request.policy.kernels
        key = self.key(request.assignment, kernels)
        with self.lock:
            again = key in self.asked
            self.asked.add(key)
        start = again or request.graded_public or bool(request.seed_salt) or (
            len(request.visibilities) > 1 and request.mode == RunMode.REPLAY)
        if not start and self.get(request.assignment, False, kernels) is None:
            return None
        if probe(request.policy) is not None:
            return None
        zygote = self.get(request.assignment, start, kernels)
        if zygote is None:
            return None

        def box(run: Path, req: RunRequest, caps: Capabilities) -> WarmBox:
            return WarmBox(run, req, caps, zygote)

        box.hidden_refusal = HostBox.hidden_refusal
        return box

    def close(self, keep: Iterable[Assignment] = ()) -> None:
        """Kill the zygotes: all (at exit), or all but those serving the assignments in `keep`
        (the self-test ends the zygote a temporary course alone used with the test that made
        the course)."""
        kept = {self.key(a)[:2] for a in keep}  # whatever their kernels
        with self.lock:
            for key in [k for k in self.zygotes if k[:2] not in kept]:
                zygote = self.zygotes.pop(key)
                if zygote is not None:
                    zygote.close(kill=True)


@functools.lru_cache(maxsize=4)
def probe(policy: SandboxPolicy) -> str | None:
    """None when a zygote's fork can enter a holder's sandbox here (once per process and
    policy); otherwise why not."""
    if not hasattr(os, "pidfd_open") or not seccomp.supported():
        return "needs Linux >= 5.3 (pidfd) on x86_64 or aarch64"
    run = Path(tempfile.mkdtemp(prefix="grade-warm-probe-"))
    zygote = sandbox = None
    try:
        for sub in ("work", "tmp", "lib"):
            (run / sub).mkdir()
        (run / "lib" / "probe.py").write_text("import os\nprint('entered', os.getcwd(), flush=True)\n"
                                              "os._exit(0)\n")
        zygote = Zygote([])
        sandbox = RunSandbox(run, policy)
        holder, pid = start_holder(sandbox, [], [])
        child = None
        try:
            names, ns = holder_fds(pid)
            out = run / "stdout"
            fds = [os.open(out, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644),
                   os.open(run / "stderr", os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644), *ns]
            slot = sandbox.slot
            try:
                child = zygote.spawn({
                    "boot": str(run / "lib" / "probe.py"), "config": "", "workdir":
                    str(run / "work"), "env": scrubbed_env(run), "rlimits": [], "cgroup": [],
                    "uid": slot.uid if slot else None, "gid": slot.gid if slot else None,
                    "ns": names, "seccomp": seccomp.program().hex()}, fds)
            finally:
                for fd in fds:
                    os.close(fd)
            select.select([child.pidfd], [], [], HOLDER_S)
            text = out.read_text()
        finally:
            if child is not None:
                child.kill()
            kill_group(holder)
        if text.strip() != f"entered {run / 'work'}":
            err = (run / "stderr").read_text().strip().splitlines()[-1:] or ["no output"]
            return f"a zygote's fork could not enter the sandbox ({err[0][:200]})"
        return None
    except OSError as e:
        return f"the warm path cannot start here ({e})"
    finally:
        if zygote is not None:
            zygote.close()
        if sandbox is not None:
            sandbox.close()
        shutil.rmtree(run, ignore_errors=True)
