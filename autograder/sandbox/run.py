"""`RunSandbox`: isolation for one graded run folder, composed from the layers.

The child's command line is a chain of small programs, one per layer, in the order of the layer
table in docs/SECURITY.md, so that nothing runs between fork and exec in the (threaded) grader:
setpriv (die with the grader) -> cgroup (sh joins the run's cgroup) -> rlimits (prlimit)
-> namespaces (bwrap) -> user (setpriv to the run's uid) -> python -I -B boot.py config.json.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import bwrap, cgroups
from .policy import SandboxPolicy
from .probes import Capabilities, capabilities, require
from .uids import Slot, kill_uid, remove_leftovers


@dataclass(frozen=True)
class ChildCommand:
    argv: list[str]
    env: dict[str, str]
    preexec: Callable[[], None] | None  # run in the child before exec; None unless prlimit is missing


def scrubbed_env(run_dir: Path) -> dict[str, str]:
    """The child's whole environment: nothing inherited from the grader."""
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
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "HYPOTHESIS_NO_PLUGINS": "1",
    }


class RunSandbox:
    """Isolation for one graded run (one run folder, possibly several child processes)."""

    def __init__(self, run_dir: Path, policy: SandboxPolicy, caps: Capabilities | None = None):
        self.run = Path(run_dir)
        self.policy = policy
        self.caps = caps if caps is not None else capabilities(policy)
        require(policy, self.caps)
        self.slot: Slot | None = None
        self.cgroup: cgroups.Cgroup | None = None
        try:
            if self.caps.user:
                self.slot = Slot.acquire()
            if self.caps.cgroup:
                try:
                    cgroups.remove_stale(os.getpid())
                    self.cgroup = cgroups.Cgroup.create(
                        cgroups.probe()[0], f"{os.getpid()}-{self.run.name}",
                        policy.limits.memory, policy.limits.pids)
                except OSError:
                    self.cgroup = None
            if self.slot is not None:
                self.slot.own_tree(self.run)
        except BaseException:
            self.close()
            raise

    @property
    def layers(self) -> list[str]:
        """The layers this run actually has."""
        have = {"namespaces": self.caps.namespaces, "user": self.slot is not None,
                "rlimits": self.caps.rlimits, "cgroup": self.cgroup is not None}
        return [layer for layer, on in have.items() if on]

    def new_output_file(self, path: Path) -> Path:
        """Create a file the child may write (the events file)."""
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        os.close(fd)
        if self.slot is not None:
            os.chown(path, self.slot.uid, self.slot.gid)
        return path

    def command(self, boot: Path, config: Path, writable: list[Path], forbidden: list[str],
                program: list[str] | None = None, info_fd: int | None = None) -> ChildCommand:
        """How to start `python -I -B boot config` for one child of this run (`program`: that
        command line instead, e.g. the warm path's holder; `info_fd`: bubblewrap writes the
        host pid of the sandbox's first process there)."""
        limits = self.policy.limits
        python = program or [sys.executable, "-I", "-B", str(boot), str(config)]
        env = scrubbed_env(self.run)
        setpriv = shutil.which("setpriv")
        prlimit = shutil.which("prlimit")
        # if the grader dies, so does the child (bwrap then takes its namespace down); a grader
        # that died before setpriv armed the signal is caught by the parent check right after
        argv: list[str] = [setpriv, "--pdeathsig", "KILL", "--", *parent_check()] \
            if setpriv else []
        if self.policy.mode == "none":
            if prlimit:
                return ChildCommand([*argv, prlimit, *limits.prlimit_args(full=False), "--",
                                     *python], env, None)
            return ChildCommand(argv + python, env,
                                functools.partial(limits.apply, full=False))
        preexec = None
        if self.cgroup is not None:
            argv += self.cgroup.wrapper()
        nproc = self.slot is not None
        if prlimit:
            argv += [prlimit, *limits.prlimit_args(full=self.caps.rlimits, nproc=nproc), "--"]
        else:
            preexec = functools.partial(limits.apply, full=self.caps.rlimits, nproc=nproc)
        if self.caps.namespaces:
            uid = self.slot.uid if self.slot else os.getuid()
            gid = self.slot.gid if self.slot else os.getgid()
            argv += bwrap.wrapper(self.run, uid, gid, [str(f) for f in forbidden], writable,
                                  limits, info_fd)
        if self.slot is not None:
            argv += self.slot.wrapper()
        return ChildCommand(argv + python, env, preexec)

    def after_child(self) -> None:
        """Kill whatever the child left running (escaped daemons, orphans); without the
        namespaces layer also remove what its uid left in the host's shared writable places
        (/tmp, /dev/shm, ...) and its System V IPC objects: no later child may find them."""
        if self.cgroup is not None:
            self.cgroup.kill_all()
        if self.slot is not None:
            kill_uid(self.slot.uid)
            if not self.caps.namespaces:
                remove_leftovers(self.slot.uid)

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
