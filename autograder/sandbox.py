"""How the graded child process is started: its command line, user, limits, cgroup and environment.

This is the one place that decides what the child can see and do (docs/SECURITY.md). The trusted
parent builds a run folder (runner.prepare_run_dir) and opens a `RunSandbox` on it; the sandbox
says how to start Python inside it and cleans up after each child. Layers, each optional where
the machine cannot provide it, and reported when missing:

- namespaces: bubblewrap with new PID/network/IPC/UTS/mount namespaces: loopback only, a
  read-only view of /usr, the interpreter and its site-packages and the run folder (harness,
  submission copy, test files, stored inputs), size-capped private tmpfs scratch (work/, tmp/,
  /tmp, /dev/shm), the run's events file writable; the assignment's forbidden modules masked.
  Nothing else of the host: no home, no repository, no goldens, no other submission.
- user: when the grader is root, each run gets its own unprivileged uid (a slot, locked for the
  run), so RLIMIT_NPROC binds per run, the child cannot signal the grader or other runs, and
  everything it left running is killed by uid afterwards.
- rlimits: address space, CPU seconds, file size, open files, processes, no core dumps.
- cgroup: memory and pids limits per run (cgroup v1 or v2, where this machine lets us create
  one); leftover processes are killed through it.
- always: scrubbed environment, `python -I -B`, wall timeouts and capped reads (runner.py), and
  the trust boundary itself (observations compared in the parent).

Isolation modes: `auto` (default; use every layer available, say loudly which are missing),
`strict` (refuse to run a child without namespaces + an unprivileged user + rlimits), `none`
(the plain child: scrubbed env and file-size limit only; for debugging and overhead figures).
"""

from __future__ import annotations

import errno
import fcntl
import functools
import json
import os
import pwd
import resource
import shlex
import shutil
import signal
import site
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

MODES = ("auto", "strict", "none")
ENV_MODE = "AUTOGRADER_ISOLATION"
# For tests and diagnosis only: pretend these layers are unavailable (comma list).
ENV_DISABLE = "AUTOGRADER_SANDBOX_DISABLE"

FILE_SIZE_LIMIT = 128 * 2**20  # bytes any one file the child writes may reach
ADDRESS_SPACE_LIMIT = 4 * 2**30  # per process; ddp (torch + gloo, 2 ranks) passes with 1 GiB
CPU_SECONDS = 600  # per process; the parent's wall timeouts normally act long before
OPEN_FILES = 4096
PROCESSES = 1024  # per run uid (threads count)
MEMORY_LIMIT = 4 * 2**30  # per run (cgroup), all processes and tmpfs scratch together
PIDS_LIMIT = 1024  # per run (cgroup)
SCRATCH_SIZE = 512 * 2**20  # each of work/ and tmp/ (tmpfs, namespaces layer)
SHM_SIZE = 512 * 2**20  # /dev/shm (torch.multiprocessing shares tensors through it)
SLOT_UID_BASE = int(os.environ.get("AUTOGRADER_SANDBOX_UID_BASE", "2100000000"))
SLOTS = 256

LAYERS = {
    "namespaces": "bubblewrap: PID/network/IPC/mount namespaces, read-only view of what the "
                  "run needs, size-capped private scratch",
    "user": "an unprivileged uid per run",
    "rlimits": "rlimits: address space, CPU, file size, open files, processes",
    "cgroup": "a cgroup per run with memory and pids limits",
}

# Each attack of the adversarial corpus, and the layers that stop it: any one listed layer is
# enough. "engine" is always present (trust boundary, wall timeouts, capped reads, intake).
ATTACKS: dict[str, tuple[str, ...]] = {
    "early exit (sys.exit, os._exit)": ("engine",),
    "killing the grader process": ("namespaces", "user"),
    "lying __eq__/__lt__/__bool__ objects": ("engine",),
    "monkeypatching pytest/numpy/the harness": ("engine",),
    "forged events/observations": ("engine",),
    "writing fake results or other runs' files": ("namespaces", "user"),
    "reading goldens, solutions, other submissions on the host": ("namespaces",),
    "reading hidden tests during public tests": ("engine",),
    "network connections": ("namespaces",),
    "fork bomb": ("cgroup", "user"),
    "memory bomb": ("cgroup", "rlimits"),
    "disk fill": ("namespaces",),
    "endless loop (Python or C)": ("engine",),
    "huge output": ("engine", "rlimits"),
    "signals to other processes": ("namespaces", "user"),
    "daemons/orphans outliving the run": ("namespaces", "cgroup", "user"),
    "files persisting into the next run": ("namespaces", "user"),
    "zip path traversal, symlinks, zip bombs": ("engine",),
    "forbidden modules imported dynamically": ("namespaces",),
}


class IsolationError(Exception):
    """Strict isolation was asked for and this machine cannot provide it."""


@dataclass(frozen=True)
class ChildCommand:
    argv: list[str]
    env: dict[str, str]
    preexec: object  # callable run in the child before exec; None unless prlimit is missing


# ---------------------------------------------------------------------------------- mode


_mode: str | None = None


def set_isolation(mode: str) -> None:
    """Select the isolation mode for this process and the processes it starts."""
    global _mode
    if mode not in MODES:
        raise ValueError(f"isolation must be one of {MODES}")
    _mode = mode
    os.environ[ENV_MODE] = mode


def isolation_mode() -> str:
    mode = _mode or os.environ.get(ENV_MODE, "auto")
    return mode if mode in MODES else "auto"


def _disabled() -> set[str]:
    return {s.strip() for s in os.environ.get(ENV_DISABLE, "").split(",") if s.strip()}


# ------------------------------------------------------------------------- capabilities


@dataclass
class Capabilities:
    namespaces: bool
    user: bool
    rlimits: bool
    cgroup: bool
    why: dict[str, str] = field(default_factory=dict)  # layer -> why it is missing

    def missing(self) -> list[str]:
        return [layer for layer in LAYERS if not getattr(self, layer)]

    def full(self) -> bool:
        return self.namespaces and self.user and self.rlimits

    def uncovered(self) -> list[str]:
        have = {"engine"} | {layer for layer in LAYERS if getattr(self, layer)}
        return [attack for attack, layers in ATTACKS.items() if not have & set(layers)]


def _is_root() -> bool:
    return os.geteuid() == 0


def _python_paths() -> list[Path]:
    """Folders the interpreter needs: its prefix(es) (venv and base installation)."""
    out: list[Path] = []
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
              os.path.dirname(os.path.realpath(sys.executable))):
        path = Path(p)
        if any(path == q or q in path.parents for q in out):
            continue
        out = [q for q in out if path not in q.parents] + [path]
    return [p for p in out if not (p == Path("/usr") or Path("/usr") in p.parents)]


def _readable_by_others(path: Path) -> bool:
    """Whether an unprivileged user can traverse to (and read) path."""
    try:
        real = Path(os.path.realpath(path))
        for p in [*reversed(real.parents), real]:
            mode = p.stat().st_mode
            if not mode & 0o001:
                return False
        return bool(real.stat().st_mode & 0o004)
    except OSError:
        return False


@lru_cache(maxsize=1)
def _bwrap_probe() -> str | None:
    """None when bubblewrap can build our sandbox here; otherwise why not."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    if _is_root() and shutil.which("setpriv") is None:
        return "setpriv (util-linux) is missing: cannot drop to an unprivileged user inside"
    argv = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--die-with-parent", *_base_mounts(), "--", "/usr/bin/true"]
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bubblewrap failed to start ({e})"
    if r.returncode != 0:
        msg = r.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["?"]
        return f"bubblewrap cannot create namespaces here ({msg[0][:200]})"
    return None


def _cgroup_bases() -> dict[str, tuple[str, Path]]:
    """{controller: (version, folder we may create run cgroups in)} for memory and pids."""
    found: dict[str, tuple[str, Path]] = {}
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


@lru_cache(maxsize=1)
def _cgroup_probe() -> tuple[dict[str, tuple[str, Path]], str | None]:
    bases = _cgroup_bases()
    if not {"memory", "pids"} <= set(bases):
        return {}, "no writable cgroup with memory and pids controllers"
    test = None
    try:
        test = _Cgroup.create(bases, f"probe-{os.getpid()}", 2**30, 64)
    except OSError as e:
        return {}, f"cannot create a cgroup here ({e})"
    finally:
        if test is not None:
            test.destroy()
    return bases, None


def capabilities() -> Capabilities:
    """What isolation this machine provides now (probes are cached per process)."""
    disabled = _disabled()
    why: dict[str, str] = {}
    ns_problem = "disabled by " + ENV_DISABLE if "namespaces" in disabled else _bwrap_probe()
    if ns_problem:
        why["namespaces"] = ns_problem
    user_ok = _is_root() and "user" not in disabled
    if not user_ok:
        why["user"] = ("disabled by " + ENV_DISABLE if "user" in disabled else
                       "the grader does not run as root, so it cannot switch the child to an "
                       "unprivileged uid of its own")
    elif shutil.which("setpriv") is None:
        user_ok = False
        why["user"] = "setpriv (util-linux) is missing: cannot switch to an unprivileged uid"
    elif ns_problem and not all(_readable_by_others(p) for p in _python_paths()):
        user_ok = False
        why["user"] = ("the interpreter lives under a folder other users cannot read (e.g. "
                       "/root is 0700); install Python elsewhere or make its path readable")
    cg_problem = "disabled by " + ENV_DISABLE if "cgroup" in disabled else _cgroup_probe()[1]
    if cg_problem:
        why["cgroup"] = cg_problem
    rl_ok = "rlimits" not in disabled
    if not rl_ok:
        why["rlimits"] = "disabled by " + ENV_DISABLE
    return Capabilities(namespaces=not ns_problem, user=user_ok, rlimits=rl_ok,
                        cgroup=not cg_problem, why=why)


def report_lines(mode: str | None = None) -> list[str]:
    """Loud lines for the report when isolation is incomplete (empty when complete)."""
    mode = mode or isolation_mode()
    if mode == "none":
        return [("WARNING: isolation is OFF (--isolation none): submitted code runs with the "
                 "grader's privileges; every attack that needs a sandbox layer succeeds.")]
    caps = capabilities()
    missing = caps.missing()
    if not missing:
        return []
    lines = [f"WARNING: isolation incomplete, missing layer '{layer}': {caps.why.get(layer, '')}"
             for layer in missing]
    uncovered = caps.uncovered()
    if uncovered:
        lines.append("WARNING: attacks NOT stopped on this machine: " + "; ".join(uncovered))
    return lines


def require(mode: str | None = None) -> None:
    """Raise IsolationError when `mode` is strict and the machine lacks a required layer."""
    mode = mode or isolation_mode()
    if mode != "strict":
        return
    caps = capabilities()
    if not caps.full():
        missing = [f"{layer} ({caps.why.get(layer, '')})" for layer in caps.missing()
                   if layer != "cgroup"]
        raise IsolationError("--isolation strict: refusing to run submitted code without "
                             "full isolation; missing: " + "; ".join(missing))


# ---------------------------------------------------------------------------- pieces


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


def _base_mounts() -> list[str]:
    """/usr read-only, the merged-/usr symlinks, /proc, a minimal /dev."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "lib", "lib32", "lib64", "sbin"):
        p = Path("/") / name
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), str(p)]
        elif p.is_dir():
            args += ["--ro-bind", str(p), str(p)]
    return args + ["--proc", "/proc", "--dev", "/dev"]


def _limits(nproc: bool) -> None:
    """rlimits layer (runs in the child before exec)."""
    def set_(which, value):
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            _, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY and hard < value:
                resource.setrlimit(which, (hard, hard))
    set_(resource.RLIMIT_CORE, 0)
    set_(resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT)
    set_(resource.RLIMIT_AS, ADDRESS_SPACE_LIMIT)
    set_(resource.RLIMIT_CPU, CPU_SECONDS)
    set_(resource.RLIMIT_NOFILE, OPEN_FILES)
    if nproc:
        set_(resource.RLIMIT_NPROC, PROCESSES)


def _uid_pids(uid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    out.append(int(name))
            except OSError:
                pass
    return out


def _prlimit_args(nproc: bool) -> list[str]:
    args = ["--core=0", f"--fsize={FILE_SIZE_LIMIT}", f"--as={ADDRESS_SPACE_LIMIT}",
            f"--cpu={CPU_SECONDS}", f"--nofile={OPEN_FILES}"]
    return args + ([f"--nproc={PROCESSES}"] if nproc else [])


def kill_uid(uid: int, rounds: int = 50) -> None:
    """SIGKILL every process of `uid` (a sandbox slot uid; never the grader's own).

    `kill(-1, SIGKILL)` run *as that uid* signals all its processes in one sweep (a fork bomb
    cannot outrun it); it runs in a separate program (setpriv + kill), never in a forked copy
    of the (threaded) grader."""
    if not _is_root() or uid < SLOT_UID_BASE:
        return
    setpriv, kill = shutil.which("setpriv"), shutil.which("kill")
    for _ in range(rounds):
        pids = _uid_pids(uid)
        if not pids:
            return
        if setpriv and kill:
            subprocess.run([setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", kill,
                            "-KILL", "-1"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
        else:
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        time.sleep(0.002)


class _Cgroup:
    """A run's cgroup (v1: one folder per controller; v2: one folder)."""

    def __init__(self, dirs: list[Path]):
        self.dirs = dirs

    @classmethod
    def create(cls, bases: dict[str, tuple[str, Path]], name: str, memory: int,
               pids: int) -> _Cgroup:
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

    def join(self) -> None:
        """Move the calling process into the cgroup (runs in the child before exec)."""
        for d in self.dirs:
            with open(d / "cgroup.procs", "w") as f:
                f.write(str(os.getpid()))

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


def _remove_stale_runs(gid: int) -> None:
    """Run folders of this slot left by a grader that died mid-run (we hold the slot's lock, so
    no live run uses it): they hold another student's submission and tests."""
    tmp = Path(tempfile.gettempdir())
    try:
        entries = list(tmp.glob("grade-*"))
    except OSError:
        return
    for d in entries:
        try:
            st = d.lstat()
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and st.st_gid == gid:
            shutil.rmtree(d, ignore_errors=True)


_stale_checked = False


def _remove_stale_cgroups() -> None:
    """Cgroups of graders that died mid-run (`autograder-<pid>-…` with <pid> gone); once per
    process."""
    global _stale_checked
    if _stale_checked:
        return
    _stale_checked = True
    for _, base in {b for b in _cgroup_probe()[0].values()}:
        try:
            entries = [e for e in os.listdir(base) if e.startswith("autograder-")]
        except OSError:
            continue
        for entry in entries:
            pid = entry.split("-")[1]
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                os.kill(int(pid), 0)
                continue  # its grader is alive
            except ProcessLookupError:
                pass
            except PermissionError:
                continue
            _Cgroup([base / entry]).destroy()


class _Slot:
    """An unprivileged uid reserved for one run (an flock held for the run's lifetime)."""

    def __init__(self, uid: int, fd: int):
        self.uid, self.gid, self.fd = uid, uid, fd

    @classmethod
    def acquire(cls) -> _Slot:
        d = Path(tempfile.gettempdir()) / f"autograder-slots-{os.geteuid()}"
        d.mkdir(mode=0o700, exist_ok=True)
        if d.is_symlink() or d.stat().st_uid != os.geteuid():
            raise IsolationError(f"{d} is not ours")
        os.chmod(d, 0o700)
        start = os.getpid() % SLOTS
        for k in range(SLOTS):
            n = (start + k) % SLOTS
            uid = SLOT_UID_BASE + n
            try:
                pwd.getpwuid(uid)
                continue  # a real account: never reuse it
            except KeyError:
                pass
            fd = os.open(d / f"slot-{n}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            kill_uid(uid)  # leftovers of a grader that died mid-run
            _remove_stale_runs(uid)
            return cls(uid, fd)
        raise IsolationError("all sandbox uid slots are busy")

    def release(self) -> None:
        kill_uid(self.uid)
        os.close(self.fd)


def _forbidden_masks(forbidden: list[str], masks_dir: Path) -> list[str]:
    """bwrap arguments hiding each forbidden top-level module from the import path."""
    if not forbidden:
        return []
    dirs: list[str] = []
    for p in [sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"],
              os.path.join(sysconfig.get_paths()["stdlib"], "lib-dynload"),
              *site.getsitepackages()]:
        if os.path.isdir(p) and p not in dirs:
            dirs.append(p)
    masks_dir.mkdir(exist_ok=True)
    args: list[str] = []
    for name in forbidden:
        if not name.isidentifier():
            continue
        stub = masks_dir / name
        stub.mkdir(exist_ok=True)
        text = f"raise ImportError('module {name!r} is forbidden in this assignment')\n"
        (stub / "__init__.py").write_text(text)
        (masks_dir / f"{name}.py").write_text(text)
        empty = masks_dir / "empty.so"
        empty.write_bytes(b"")
        for d in dirs:
            try:
                entries = os.listdir(d)
            except OSError:
                continue
            for entry in entries:
                full = os.path.join(d, entry)
                if entry == name and os.path.isdir(full):
                    args += ["--ro-bind", str(stub), full]
                elif entry == f"{name}.py":
                    args += ["--ro-bind", str(masks_dir / f"{name}.py"), full]
                elif entry.startswith(f"{name}.") and entry.endswith((".so", ".pyd")):
                    args += ["--ro-bind", str(empty), full]
    return args


# ------------------------------------------------------------------------- the sandbox


class RunSandbox:
    """Isolation for one graded run (one run folder, possibly several child processes)."""

    def __init__(self, run_dir: Path, mode: str | None = None):
        self.run = Path(run_dir)
        self.mode = mode or isolation_mode()
        require(self.mode)
        caps = capabilities() if self.mode != "none" else Capabilities(False, False, False,
                                                                         False)
        self.caps = caps
        self.slot: _Slot | None = None
        self.cgroup: _Cgroup | None = None
        try:
            if caps.user:
                self.slot = _Slot.acquire()
            if caps.cgroup:
                try:
                    _remove_stale_cgroups()
                    self.cgroup = _Cgroup.create(_cgroup_probe()[0],
                                                 f"{os.getpid()}-{self.run.name}",
                                                 MEMORY_LIMIT, PIDS_LIMIT)
                except OSError:
                    self.cgroup = None
            self._prepare_tree()
        except BaseException:
            self.close()
            raise

    @property
    def layers(self) -> list[str]:
        out = []
        if self.caps.namespaces:
            out.append("namespaces")
        if self.slot:
            out.append("user")
        if self.caps.rlimits:
            out.append("rlimits")
        if self.cgroup:
            out.append("cgroup")
        return out

    def _prepare_tree(self) -> None:
        """Permissions: the run folder readable by the run's uid only; work/ and tmp/ its own."""
        if self.slot is None:
            return
        gid = self.slot.gid
        os.chown(self.run, 0, gid)
        os.chmod(self.run, 0o750)
        for sub in ("lib", "impl", "tests", "inputs"):
            top = self.run / sub
            if not top.exists():
                continue
            for path in [top, *top.rglob("*")]:
                if path.is_symlink():
                    continue
                os.chown(path, 0, gid)
                os.chmod(path, 0o750 if path.is_dir() else 0o640)
        for sub in ("work", "tmp"):
            os.chown(self.run / sub, self.slot.uid, gid)
            os.chmod(self.run / sub, 0o700)

    def new_output_file(self, path: Path) -> Path:
        """Create a file the child may write (the events file)."""
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        os.close(fd)
        if self.slot is not None:
            os.chown(path, self.slot.uid, self.slot.gid)
        return path

    def command(self, boot: Path, config: Path, writable: list[Path]) -> ChildCommand:
        """How to start `python -I -B boot config` for one child of this run.

        A chain of small programs, so that nothing runs between fork and exec in the grader
        (preexec_fn is unsafe with threads, and bulk grading uses threads):
        setpriv (die with the grader) -> sh (join the run's cgroup) -> prlimit (rlimits)
        -> bwrap (namespaces) -> setpriv (the run's uid) -> python."""
        python = [sys.executable, "-I", "-B", str(boot), str(config)]
        env = scrubbed_env(self.run)
        setpriv = shutil.which("setpriv")
        # if the grader dies, so does the child (bwrap then takes its namespace down)
        argv: list[str] = [setpriv, "--pdeathsig", "KILL", "--"] if setpriv else []
        if self.mode == "none":
            prlimit = shutil.which("prlimit")
            if prlimit:
                return ChildCommand([*argv, prlimit, "--core=0", f"--fsize={FILE_SIZE_LIMIT}",
                                     "--", *python], env, None)
            return ChildCommand(argv + python, env, _plain_limits)
        slot, cgroup, rlimits = self.slot, self.cgroup, self.caps.rlimits
        preexec = None
        if cgroup is not None:
            joins = " && ".join(f"echo $$ > {shlex.quote(str(d / 'cgroup.procs'))}"
                                for d in cgroup.dirs)
            argv += ["/bin/sh", "-c", f'{joins} || exit 125; exec "$@"', "sandbox"]
        prlimit = shutil.which("prlimit")
        if prlimit and rlimits:
            argv += [prlimit, *_prlimit_args(nproc=slot is not None), "--"]
        elif rlimits:
            preexec = functools.partial(_limits, slot is not None)
        else:
            preexec = _plain_limits
        if self.caps.namespaces:
            argv += self._bwrap_argv(config, writable)
        if slot is not None:
            argv += [setpriv or "/usr/bin/setpriv", f"--reuid={slot.uid}",
                     f"--regid={slot.gid}", "--clear-groups", "--inh-caps=-all",
                     "--bounding-set=-all", "--no-new-privs", "--"]
        return ChildCommand(argv + python, env, preexec)

    def _bwrap_argv(self, config: Path, writable: list[Path]) -> list[str]:
        run = str(self.run)
        args = [shutil.which("bwrap") or "bwrap", "--unshare-pid", "--unshare-net",
                "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent",
                "--new-session", "--hostname", "sandbox", *_base_mounts()]
        etc = self.run / ".etc"
        if not etc.exists():
            etc.mkdir()
            uid = self.slot.uid if self.slot else os.getuid()
            gid = self.slot.gid if self.slot else os.getgid()
            (etc / "passwd").write_text(f"root:x:0:0::/nonexistent:/usr/sbin/nologin\n"
                                        f"student:x:{uid}:{gid}::{run}/work:/usr/sbin/nologin\n")
            (etc / "group").write_text(f"root:x:0:\nstudent:x:{gid}:\n")
            (etc / "hosts").write_text("127.0.0.1 localhost sandbox\n::1 localhost\n")
            (etc / "nsswitch.conf").write_text("passwd: files\ngroup: files\nhosts: files\n")
            for f in etc.iterdir():
                os.chmod(f, 0o644)
            os.chmod(etc, 0o755)
        for name in ("passwd", "group", "hosts", "nsswitch.conf"):
            args += ["--ro-bind", str(etc / name), f"/etc/{name}"]
        for name in ("ld.so.cache", "localtime"):
            if os.path.exists(f"/etc/{name}"):
                args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
        args += ["--perms", "1777", "--size", str(SHM_SIZE), "--tmpfs", "/dev/shm",
                 "--perms", "1777", "--size", str(64 * 2**20), "--tmpfs", "/tmp"]
        made: set[str] = {"/", "/tmp", "/usr", "/dev", "/proc", "/etc"}
        for p in _python_paths():
            for parent in reversed(p.parents):
                if str(parent) not in made:
                    made.add(str(parent))
                    args += ["--perms", "0755", "--dir", str(parent)]
            args += ["--ro-bind", str(p), str(p)]
            made.add(str(p))
        try:
            forbidden = json.loads(config.read_text()).get("forbidden", [])
        except (OSError, ValueError):
            forbidden = []
        args += _forbidden_masks([str(f) for f in forbidden], self.run / ".masks")
        for parent in reversed(self.run.parents):
            if str(parent) not in made:
                made.add(str(parent))
                args += ["--perms", "0755", "--dir", str(parent)]
        args += ["--ro-bind", run, run]
        for sub in ("work", "tmp"):
            args += ["--perms", "1777", "--size", str(SCRATCH_SIZE), "--tmpfs", f"{run}/{sub}"]
        for w in writable:
            args += ["--bind", str(w), str(w)]
        args += ["--chdir", f"{run}/work", "--"]
        return args

    def after_child(self) -> None:
        """Kill whatever the child left running (escaped daemons, orphans)."""
        if self.cgroup is not None:
            self.cgroup.kill_all()
        if self.slot is not None:
            kill_uid(self.slot.uid)

    def close(self) -> None:
        if self.cgroup is not None:
            self.cgroup.destroy()
            self.cgroup = None
        if self.slot is not None:
            self.slot.release()
            self.slot = None


def _plain_limits() -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))


def child_command(run_dir: Path, boot: Path, config: Path) -> ChildCommand:
    """The plain child (isolation 'none'): `python -I -B boot.py config.json`, scrubbed
    environment, no core dumps, capped file size. Graded runs use RunSandbox.command."""
    argv = [sys.executable, "-I", "-B", str(boot), str(config)]
    return ChildCommand(argv=argv, env=scrubbed_env(run_dir), preexec=_plain_limits)
