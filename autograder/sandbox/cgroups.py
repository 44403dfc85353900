"""The cgroup layer: memory and pids limits per run (cgroup v1 or v2, where this machine lets us
create one); leftover processes are killed through it."""

from __future__ import annotations

import errno
import functools
import os
import shlex
import signal
import time
from pathlib import Path

Bases = dict[str, tuple[str, Path]]  # controller -> (version, folder we may create groups in)


def cgroup_bases() -> Bases:
    """Where this process may create run cgroups, for memory and pids (and cpu on v1)."""
    found: Bases = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return found
    root = Path("/sys/fs/cgroup")
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, rel = parts
        for ctl in controllers.split(","):
            if ctl in ("memory", "pids", "cpu"):
                base = root / ctl / rel.lstrip("/")
                if not base.is_dir():
                    base = root / ctl
                if os.access(base, os.W_OK) and (base / "cgroup.procs").exists():
                    found[ctl] = ("v1", base)
    if not found and (root / "cgroup.controllers").exists():
        rel = next((ln.split(":", 2)[2] for ln in lines if ln.startswith("0::")), "/")
        base = root / rel.lstrip("/")
        try:
            enabled = (base / "cgroup.subtree_control").read_text().split()
        except OSError:
            enabled = []
        if os.access(base, os.W_OK):
            for ctl in ("memory", "pids"):
                if ctl in enabled:
                    found[ctl] = ("v2", base)
    return found


@functools.lru_cache(maxsize=1)
def probe() -> tuple[Bases, str | None]:
    """(bases, None) when run cgroups can be created here; otherwise ({}, why not)."""
    bases = cgroup_bases()
    if not {"memory", "pids"} <= set(bases):
        return {}, "no writable cgroup with memory and pids controllers"
    test = None
    try:
        test = Cgroup.create(bases, f"probe-{os.getpid()}", 2**30, 64)
    except OSError as e:
        return {}, f"cannot create a cgroup here ({e})"
    finally:
        if test is not None:
            test.destroy()
    return bases, None


class Cgroup:
    """A run's cgroup (v1: one folder per controller; v2: one folder)."""

    def __init__(self, dirs: list[Path]):
        self.dirs = dirs

    @classmethod
    def create(cls, bases: Bases, name: str, memory: int, pids: int) -> Cgroup:
        dirs: list[Path] = []
        group = cls(dirs)
        try:
            for ctl, (version, base) in bases.items():
                d = base / f"autograder-{name}"
                if d in dirs:
                    continue
                d.mkdir(exist_ok=True)
                dirs.append(d)
                if version == "v1" and ctl == "cpu":
                    pass  # its own group: a fair CPU share against other runs, default weight
                elif version == "v1" and ctl == "memory":
                    (d / "memory.limit_in_bytes").write_text(str(memory))
                elif version == "v1" and ctl == "pids":
                    (d / "pids.max").write_text(str(pids))
                else:
                    (d / "memory.max").write_text(str(memory))
                    (d / "pids.max").write_text(str(pids))
                    try:
                        (d / "memory.swap.max").write_text("0")
                    except OSError:
                        pass
        except OSError:
            group.destroy()
            raise
        return group

    def wrapper(self) -> list[str]:
        """The command-line layer: a shell that joins the cgroup, then execs the rest."""
        joins = " && ".join(f"echo $$ > {shlex.quote(str(d / 'cgroup.procs'))}"
                            for d in self.dirs)
        return ["/bin/sh", "-c", f'{joins} || exit 125; exec "$@"', "sandbox"]

    def pids(self) -> list[int]:
        out: set[int] = set()
        for d in self.dirs:
            try:
                out |= {int(x) for x in (d / "cgroup.procs").read_text().split()}
            except (OSError, ValueError):
                pass
        return sorted(out)

    def kill_all(self, rounds: int = 50) -> None:
        for d in self.dirs:  # v2 has a one-shot kill
            if (d / "cgroup.kill").exists():
                try:
                    (d / "cgroup.kill").write_text("1")
                except OSError:
                    pass
        for _ in range(rounds):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.005)

    def destroy(self) -> None:
        self.kill_all()
        for d in self.dirs:
            for _ in range(100):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as e:
                    if e.errno not in (errno.EBUSY, errno.ENOTEMPTY):
                        break
                    time.sleep(0.01)


@functools.cache
def remove_stale(grader_pid: int) -> None:
    """Cgroups of graders that died mid-run (`autograder-<pid>-…` with <pid> gone); once per
    grader process (the cache is keyed by our pid)."""
    for _, base in set(probe()[0].values()):
        try:
            entries = [e for e in os.listdir(base) if e.startswith("autograder-")]
        except OSError:
            continue
        for entry in entries:
            pid = entry.split("-")[1]
            if not pid.isdigit() or int(pid) == grader_pid:
                continue
            try:
                os.kill(int(pid), 0)
                continue  # its grader is alive
            except ProcessLookupError:
                pass
            except PermissionError:
                continue
            Cgroup([base / entry]).destroy()
