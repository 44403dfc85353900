"""`RunSandbox`: isolation for one graded run folder, composed from the layers.

The child's command line is a chain of small programs, one per layer, in the order of the layer
table in docs/SECURITY.md, so that nothing runs between fork and exec in the (threaded) grader:
setpriv (die with the grader) -> cgroup (sh joins the run's cgroup) -> rlimits (prlimit)
-> namespaces (bwrap, which loads the seccomp filter) -> user (setpriv to the child's uid)
-> python -I -B boot.py config.json. Without bubblewrap, `seccomp.py` loads the filter in its
place. Each child gets a uid slot of its own, released when it ends (`after_child`).
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import bwrap, cgroups, seccomp
from .kernels import DEFAULT_KERNELS, Kernels
from .policy import IsolationMode, SandboxPolicy
from .probes import Capabilities, capabilities, require
from .uids import Slot, remove_leftovers


@dataclass(frozen=True)
class ChildCommand:
    argv: list[str]
    env: dict[str, str]
    preexec: Callable[[], None] | None  # run in the child before exec; None unless prlimit is missing
    pass_fds: tuple[int, ...] = ()  # fds argv names (the seccomp program): the starter passes
    # them to the child (same numbers) and closes them once it started

    def close(self) -> None:
        for fd in self.pass_fds:
            os.close(fd)


def scrubbed_env(run_dir: Path, kernels: Kernels = DEFAULT_KERNELS) -> dict[str, str]:
    """The child's whole environment: nothing inherited from the grader; the numeric
    libraries' thread counts and kernels from `kernels` (sandbox/kernels.py)."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(run_dir / "work"),
        "TMPDIR": str(run_dir / "tmp"),
        "USER": "student",
        "LOGNAME": "student",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLBACKEND": "Agg",
        "HYPOTHESIS_NO_PLUGINS": "1",
        **kernels.env(),
    }


class RunSandbox:
    """Isolation for one graded run (one run folder, possibly several child processes)."""

    def __init__(self, run_dir: Path, policy: SandboxPolicy, caps: Capabilities | None = None):
        self.run = Path(run_dir)
        self.policy = policy
        self.caps = caps if caps is not None else capabilities(policy)
        require(policy, self.caps)
        self.slot: Slot | None = None  # the next or running child's
        self.cgroup: cgroups.Cgroup | None = None
        try:
            self._slot()
            if self.caps.cgroup:
                try:
                    cgroups.remove_stale(os.getpid())
                    self.cgroup = cgroups.Cgroup.create(
                        cgroups.probe()[0], f"{os.getpid()}-{self.run.name}",
                        policy.limits.memory, policy.limits.pids)
                except OSError:
                    self.cgroup = None
        except BaseException:
            self.close()
            raise

    def _slot(self) -> Slot | None:
        """The next child's uid slot: taken (and the run folder given to its gid) once the
        previous child's was released."""
        if self.slot is None and self.caps.user:
            self.slot = Slot.acquire()
            self.slot.own_tree(self.run)
        return self.slot

    @property
    def layers(self) -> list[str]:
        """The layers this run actually has."""
        have = {"namespaces": self.caps.namespaces, "user": self.caps.user,
                "rlimits": self.caps.rlimits, "cgroup": self.cgroup is not None}
        return [layer for layer, on in have.items() if on]

    def new_output_file(self, path: Path) -> Path:
        """Create a file the next child may write (the events file)."""
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        os.close(fd)
        slot = self._slot()
        if slot is not None:
            os.chown(path, slot.uid, slot.gid)
        return path

    def command(self, boot: Path, config: Path, writable: list[Path], forbidden: list[str],
                program: list[str] | None = None, info_fd: int | None = None,
                holder: bool = False) -> ChildCommand:
        """How to start `python -I -B boot config` for one child of this run (`program`: that
        command line instead; `holder`: it is the warm path's holder, run as the slot's holder
        uid; `info_fd`: bubblewrap writes the host pid of the sandbox's first process there).
        Every mode but `none` loads the seccomp filter (sandbox/seccomp.py) before `program`."""
        limits = self.policy.limits
        python = program or [sys.executable, "-I", "-B", str(boot), str(config)]
        env = scrubbed_env(self.run, self.policy.kernels)
        setpriv = shutil.which("setpriv")
        prlimit = shutil.which("prlimit")
        # if the grader dies, so does the child (bwrap then takes its namespace down); a grader
        # that died before setpriv armed the signal is caught by the parent check right after
        argv: list[str] = [setpriv, "--pdeathsig", "KILL", "--", *parent_check()] \
            if setpriv else []
        if self.policy.mode == IsolationMode.NONE:
            if prlimit:
                return ChildCommand([*argv, prlimit, *limits.prlimit_args(full=False), "--",
                                     *python], env, None)
            return ChildCommand(argv + python, env,
                                functools.partial(limits.apply, full=False))
        preexec = None
        if self.cgroup is not None:
            argv += self.cgroup.wrapper()
        slot = self._slot()
        nproc = slot is not None
        if slot is not None:  # the files the child writes are its uid's (a fresh slot's too)
            for w in writable:
                os.chown(w, slot.uid, slot.gid)
        if prlimit:
            argv += [prlimit, *limits.prlimit_args(full=self.caps.rlimits, nproc=nproc), "--"]
        else:
            preexec = functools.partial(limits.apply, full=self.caps.rlimits, nproc=nproc)
        filter_fd = seccomp.program_fd() if seccomp.supported() else None
        if self.caps.namespaces:
            uid = slot.uid if slot else os.getuid()
            gid = slot.gid if slot else os.getgid()
            argv += bwrap.wrapper(self.run, uid, gid, [str(f) for f in forbidden], writable,
                                  limits, info_fd, filter_fd)
        elif filter_fd is not None:  # (as the grader: the slot's uid may not read seccomp.py)
            argv += [sys.executable, "-I", "-S", seccomp.__file__, str(filter_fd)]
        if slot is not None:
            argv += slot.wrapper(holder)
        fds = () if filter_fd is None else (filter_fd,)
        return ChildCommand(argv + python, env, preexec, fds)

    def after_child(self) -> None:
        """Kill whatever the child left running (escaped daemons, orphans) and release its uid
        slot: the next child runs under another. Without the namespaces layer also remove what
        its uid left in the host's shared writable places (/tmp, /dev/shm, ...), its System V
        IPC objects and the run's scratch: no later child may find them."""
        if self.cgroup is not None:
            self.cgroup.kill_all()
        if self.slot is not None:
            self.slot.kill()
            if not self.caps.namespaces:
                remove_leftovers(self.slot.uid)
                for sub in ("work", "tmp"):
                    shutil.rmtree(self.run / sub, ignore_errors=True)
                    (self.run / sub).mkdir(exist_ok=True)
            os.chown(self.run, 0, 0)  # closed to the slot's next taker until our next child
            self.slot.release(kill=False)
            self.slot = None

    def close(self) -> None:
        if self.cgroup is not None:
            self.cgroup.destroy()
            self.cgroup = None
        if self.slot is not None:
            self.slot.release()
            self.slot = None


def parent_check() -> list[str]:
    """A command-line layer that goes on only while this process is still its parent: after
    setpriv armed the parent-death signal, a child whose grader died in between (it was
    reparented, and no signal will come) exits 125 instead of running unwatched."""
    return ["/bin/sh", "-c", 'test "$PPID" = "$0" || exit 125; exec "$@"', str(os.getpid())]
