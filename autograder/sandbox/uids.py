"""The user layer: when the grader is root, each child gets unprivileged uids of its own (a
slot, locked while the child lives: the child's uid and its holder's), so RLIMIT_NPROC binds per
child, the child cannot signal the grader, its holder or any other child, and everything it
left running is killed by uid when it ends, before another child may take the slot. A process
takes the slots in turn (the next after the last it took), so its next child runs under
another uid."""

from __future__ import annotations

import fcntl
import hashlib
import os
import pwd
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from pathlib import Path

from .. import settings
from .policy import IsolationError

SLOTS = 256
UIDS_PER_SLOT = 2  # the child's uid, then its holder's (backends/holder.py)
SLOT_SPAN = SLOTS * UIDS_PER_SLOT  # the uids of one range
UID_RANGES_BASE, UID_RANGES = 2_100_000_000, 4096  # SLOT_SPAN uids each, one per PID namespace


def slot_uid_base(given: str = "", pid_namespace: str | None = None) -> int:
    """The first slot uid: `given` (AUTOGRADER_SANDBOX_UID_BASE's value) if set, else a range chosen by this
    PID namespace (one of UID_RANGES). Slots are locked through /tmp, which a container does not
    share, while a rootful container without a user namespace shares its host's uids, and a
    grader's kill(-1) as its slot uid reaches the processes of that uid in every PID namespace
    below its own: with one range, a grader on the host killed a child graded in a container.
    Two namespaces share a range with probability 1/UID_RANGES; the variable makes it none."""
    if given:
        return int(given)
    if pid_namespace is None:
        try:
            pid_namespace = os.readlink("/proc/self/ns/pid")
        except OSError:
            pid_namespace = ""
    digest = hashlib.sha256(pid_namespace.encode()).digest()
    return UID_RANGES_BASE + SLOT_SPAN * (int.from_bytes(digest[:8], "big") % UID_RANGES)


SLOT_UID_BASE = slot_uid_base(settings.SLOT_UID_BASE.value())  # fixed for the process
SLOT_LOCKS = Path("/tmp")
RELEASED = b"released\n"  # a slot's lock file says so once its processes were killed
_NEXT = [os.getpid() % SLOTS]  # the slot this process tries first: the one after its last
# Places every user may write on a machine without the namespaces layer (with it, each child
# has private tmpfs ones): what a slot's uid left there is removed after each of its children.
SHARED_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
SYSV_IPC = {"shm": "-m", "sem": "-s", "msg": "-q"}  # /proc/sysvipc/<kind> -> ipcrm flag


def is_root() -> bool:
    return os.geteuid() == 0


def _uid_pids(uids: set[int]) -> dict[int, list[int]]:
    """The processes of each of `uids` still running (one pass over /proc): not one that has
    ended and waits to be reaped (a zombie: nothing of it runs, no signal reaches it; a warm
    child's are its zygote's to reap)."""
    out: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                uid = os.stat(f"/proc/{name}").st_uid
                if uid in uids and not _ended(name):
                    out.setdefault(uid, []).append(int(name))
            except OSError:
                pass
    return out


def _ended(pid: str) -> bool:
    """Whether process `pid` has ended: every thread of it a zombie (a main thread that exits
    alone leaves a zombie leader whose other threads still run: not ended), or it is gone."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return True
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X"):
                    return False
        except (OSError, IndexError):
            continue  # that thread is gone
    return True


def kill_uid(*uids: int, rounds: int = 50) -> None:
    """SIGKILL every process of each of `uids` (sandbox slot uids; never the grader's own).

    `kill(-1, SIGKILL)` run *as that uid* signals all its processes in one sweep (a fork bomb
    cannot outrun it); it runs in a separate program (setpriv + kill), never in a forked copy
    of the (threaded) grader."""
    wanted = {uid for uid in uids if uid >= SLOT_UID_BASE}
    if not is_root() or not wanted:
        return
    setpriv, kill = shutil.which("setpriv"), shutil.which("kill")
    for _ in range(rounds):
        found = _uid_pids(wanted)
        if not found:
            return
        for uid, pids in found.items():
            if setpriv and kill:
                subprocess.run([setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                                kill, "-KILL", "-1"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            else:
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
        time.sleep(0.002)


def remove_leftovers(uid: int) -> list[str]:
    """Remove what `uid` (a slot uid whose processes are all dead) left in the places every
    user can write, and its System V IPC objects, so that nothing a child leaves there reaches
    a later child (no namespaces layer: these are the host's own). Returns what was removed."""
    if not is_root() or uid < SLOT_UID_BASE:
        return []
    removed: list[str] = []
    for top in SHARED_WRITABLE:
        _remove_owned(Path(top), uid, removed, depth=3)
    ipcrm = shutil.which("ipcrm")
    for kind, flag in SYSV_IPC.items():
        for ident in _ipc_ids(kind, uid):
            if ipcrm:
                subprocess.run([ipcrm, flag, ident], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
                removed.append(f"sysv {kind} {ident}")
    return removed


def _remove_owned(folder: Path, uid: int, removed: list[str], depth: int) -> None:
    """Entries of `folder` owned by uid go; world-writable subfolders of others are searched."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        path = Path(entry.path)
        if st.st_uid == uid:
            if stat.S_ISDIR(st.st_mode):
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
            removed.append(str(path))
        elif stat.S_ISDIR(st.st_mode) and st.st_mode & 0o002 and depth > 1:
            _remove_owned(path, uid, removed, depth - 1)


def _ipc_ids(kind: str, uid: int) -> list[str]:
    """Ids of the System V IPC objects of `kind` (shm, sem, msg) owned by uid."""
    try:
        lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
    except OSError:
        return []
    if not lines:
        return []
    header = lines[0].split()
    if "uid" not in header or len(header) < 2:
        return []
    at = header.index("uid")
    return [f[1] for f in (ln.split() for ln in lines[1:]) if len(f) > at and f[at] == str(uid)]


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


class Slot:
    """Unprivileged uids reserved for one child (an flock held while it lives): `uid` (= `gid`)
    the child's, `holder_uid` its holder's (a warm child's sandbox), which the child can
    neither signal nor trace."""

    def __init__(self, uid: int, fd: int):
        self.uid, self.gid, self.fd = uid, uid, fd
        self.holder_uid = uid + 1

    @classmethod
    def acquire(cls) -> Slot:
        # a fixed folder, not TMPDIR's: every grader on this machine must see the same locks
        d = SLOT_LOCKS / f"autograder-slots-{os.geteuid()}"
        d.mkdir(mode=0o700, exist_ok=True)
        if d.is_symlink() or d.stat().st_uid != os.geteuid():
            raise IsolationError(f"{d} is not ours")
        os.chmod(d, 0o700)
        start = _NEXT[0]
        for k in range(SLOTS):
            n = (start + k) % SLOTS
            uid = SLOT_UID_BASE + UIDS_PER_SLOT * n
            if any(_has_account(u) for u in range(uid, uid + UIDS_PER_SLOT)):
                continue  # a real account: never reuse it
            fd = os.open(d / f"slot-{n}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            _NEXT[0] = (n + 1) % SLOTS
            slot = cls(uid, fd)
            if os.pread(fd, len(RELEASED), 0) != RELEASED:  # a grader died holding it
                slot.kill()
                _remove_stale_runs(uid)
            os.ftruncate(fd, 0)
            return slot
        raise IsolationError("all sandbox uid slots are busy")

    def wrapper(self, holder: bool = False) -> list[str]:
        """The command-line layer: become the child's uid (`holder`: the holder's) with no
        capabilities, then exec. The holder's real gid is the child's (it may enter the run
        folder) and its effective gid its own uid: exec leaves a process whose effective and
        real ids differ non-dumpable (its /proc/PID files root's, no ptrace but by root), and
        so does `sh` resetting its effective gid to the real one."""
        ids = [f"--reuid={self.holder_uid}", f"--rgid={self.gid}", f"--egid={self.holder_uid}"] \
            if holder else [f"--reuid={self.uid}", f"--regid={self.gid}"]
        return [shutil.which("setpriv") or "/usr/bin/setpriv", *ids, "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]

    def kill(self) -> None:
        """SIGKILL every process of the child's uid and of its holder's."""
        kill_uid(self.uid, self.holder_uid)

    def own_tree(self, run: Path) -> None:
        """Permissions: the run folder readable by the run's uid only; work/ and tmp/ its own."""
        gid = self.gid
        os.chown(run, 0, gid)
        os.chmod(run, 0o750)
        for sub in ("lib", "impl", "tests", "inputs"):
            top = run / sub
            if not top.exists():
                continue
            for path in [top, *top.rglob("*")]:
                if path.is_symlink():
                    continue
                os.chown(path, 0, gid)
                os.chmod(path, 0o750 if path.is_dir() else 0o640)
        for sub in ("work", "tmp"):
            os.chown(run / sub, self.uid, gid)
            os.chmod(run / sub, 0o700)

    def release(self, kill: bool = True) -> None:
        """Free the slot, its processes killed (`kill` False: the caller just did), marked in
        its lock file as left clean: the next taker skips the sweep for a dead grader's
        leftovers."""
        if kill:
            self.kill()
        os.pwrite(self.fd, RELEASED, 0)
        os.close(self.fd)


def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True
