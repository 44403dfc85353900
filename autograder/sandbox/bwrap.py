"""The namespaces layer: bubblewrap with new PID/network/IPC/UTS/mount namespaces (a fresh IPC
namespace per child: its System V objects and POSIX message queues end with it): loopback
only, a read-only view of /usr, the interpreter and its site-packages and the run folder, size-
capped private tmpfs scratch, the run's events file writable, the forbidden modules masked,
what the dotted rules name replaced (sandbox/view.py) and every other Python installation under
those trees hidden (sandbox/installations.py)."""

from __future__ import annotations

import functools
import os
import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

from .installations import hiding_args
from .policy import Limits
from .uids import is_root
from .view import child_view


def layered_site_packages() -> list[str]:
    """site-packages folders on sys.path from a .pth file (a venv layered on another one)."""
    return [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]


def python_paths() -> list[Path]:
    """Folders the interpreter needs: its prefix(es) (venv and base installation)."""
    out: list[Path] = []
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
              os.path.dirname(os.path.realpath(sys.executable)), *layered_site_packages()):
        path = Path(p)
        if any(path == q or q in path.parents for q in out):
            continue
        out = [q for q in out if path not in q.parents] + [path]
    return [p for p in out if not (p == Path("/usr") or Path("/usr") in p.parents)]


MERGED_USR = ("bin", "lib", "lib32", "lib64", "sbin")


def mounted_trees() -> list[str]:
    """The host folders the child sees whole: /usr, the top-level system folders that are not
    links into it, and the interpreter's prefixes."""
    tops = [f"/{name}" for name in MERGED_USR
            if os.path.isdir(f"/{name}") and not os.path.islink(f"/{name}")]
    return ["/usr", *tops, *(str(p) for p in python_paths())]


def base_mounts() -> list[str]:
    """/usr read-only, the merged-/usr symlinks, /proc, a minimal /dev."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in MERGED_USR:
        p = Path("/") / name
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), str(p)]
        elif p.is_dir():
            args += ["--ro-bind", str(p), str(p)]
    return args + ["--proc", "/proc", "--dev", "/dev"]


@functools.lru_cache(maxsize=1)
def probe() -> str | None:
    """None when bubblewrap can build our sandbox here; otherwise why not."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    if is_root() and shutil.which("setpriv") is None:
        return "setpriv (util-linux) is missing: cannot drop to an unprivileged user inside"
    argv = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--die-with-parent", *base_mounts(), "--", "/usr/bin/true"]
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bubblewrap failed to start ({e})"
    if r.returncode != 0:
        msg = r.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["?"]
        return f"bubblewrap cannot create namespaces here ({msg[0][:200]})"
    return None


def mask_mounts(forbidden: list[str], masks_dir: Path) -> list[tuple[str, str]]:
    """(stub, target) read-only binds hiding each forbidden top-level module from the import
    path: its package folder, module file or extension, on this interpreter's stdlib and
    site-packages (the stubs are written under `masks_dir`)."""
    if not forbidden:
        return []
    dirs: list[str] = []
    for p in [sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"],
              os.path.join(sysconfig.get_paths()["stdlib"], "lib-dynload"),
              *site.getsitepackages(), *layered_site_packages()]:
        if os.path.isdir(p) and p not in dirs:
            dirs.append(p)
    masks_dir.mkdir(exist_ok=True)
    by_stem: dict[str, list[tuple[str, str]]] = {}  # "torch" -> [(dir, "torch"), ...]
    for d in dirs:
        try:
            entries = os.listdir(d)
        except OSError:
            continue
        for entry in entries:
            by_stem.setdefault(entry.split(".", 1)[0], []).append((d, entry))
    mounts: list[tuple[str, str]] = []
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
        for d, entry in by_stem.get(name, []):
            full = os.path.join(d, entry)
            if entry == name and os.path.isdir(full):
                mounts.append((str(stub), full))
            elif entry == f"{name}.py":
                mounts.append((str(masks_dir / f"{name}.py"), full))
            elif entry.startswith(f"{name}.") and entry.endswith((".so", ".pyd")):
                mounts.append((str(empty), full))
    return mounts


def forbidden_masks(forbidden: list[str], masks_dir: Path) -> list[str]:
    """bwrap arguments hiding each forbidden top-level module from the import path."""
    return [arg for source, target in mask_mounts(forbidden, masks_dir)
            for arg in ("--ro-bind", source, target)]


def _empty_folder(run: Path) -> Path:
    """An empty folder of the run (read-only for the child), bound over what it must not see."""
    empty = run / ".empty"
    if not empty.exists():
        empty.mkdir()
        os.chmod(empty, 0o755)
    return empty


def _etc_files(run: Path, uid: int, gid: int) -> Path:
    """A minimal /etc for the child (passwd, group, hosts, nsswitch.conf), made once per run."""
    etc = run / ".etc"
    if not etc.exists():
        etc.mkdir()
        (etc / "passwd").write_text(f"root:x:0:0::/nonexistent:/usr/sbin/nologin\n"
                                    f"student:x:{uid}:{gid}::{run}/work:/usr/sbin/nologin\n")
        (etc / "group").write_text(f"root:x:0:\nstudent:x:{gid}:\n")
        (etc / "hosts").write_text("127.0.0.1 localhost sandbox\n::1 localhost\n")
        (etc / "nsswitch.conf").write_text("passwd: files\ngroup: files\nhosts: files\n")
        for f in etc.iterdir():
            os.chmod(f, 0o644)
        os.chmod(etc, 0o755)
    return etc


def wrapper(run: Path, uid: int, gid: int, forbidden: list[str], writable: list[Path],
            limits: Limits, info_fd: int | None = None,
            seccomp_fd: int | None = None) -> list[str]:
    """The command-line layer: bwrap with the run folder read-only, scratch and `writable`
    writable, the `forbidden` modules masked; then exec the rest inside (`info_fd`: bwrap
    writes {"child-pid": host pid of the sandbox's first process} there; `seccomp_fd`: the
    filter program it loads right before that exec, sandbox/seccomp.py)."""
    info = [] if info_fd is None else ["--info-fd", str(info_fd)]
    if seccomp_fd is not None:
        info += ["--seccomp", str(seccomp_fd)]
    args = [shutil.which("bwrap") or "bwrap", *info, "--unshare-pid", "--unshare-net",
            "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent",
            "--new-session", "--hostname", "sandbox", *base_mounts()]
    etc = _etc_files(run, uid, gid)
    for name in ("passwd", "group", "hosts", "nsswitch.conf"):
        args += ["--ro-bind", str(etc / name), f"/etc/{name}"]
    for name in ("ld.so.cache", "localtime"):
        if os.path.exists(f"/etc/{name}"):
            args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    args += ["--perms", "1777", "--size", str(limits.shm), "--tmpfs", "/dev/shm",
             "--perms", "1777", "--size", str(64 * 2**20), "--tmpfs", "/tmp"]
    made: set[str] = {"/", "/tmp", "/usr", "/dev", "/proc", "/etc"}
    for p in python_paths():
        for parent in reversed(p.parents):
            if str(parent) not in made:
                made.add(str(parent))
                args += ["--perms", "0755", "--dir", str(parent)]
        args += ["--ro-bind", str(p), str(p)]
        made.add(str(p))
    args += hiding_args(mounted_trees(), str(_empty_folder(run)))
    args += forbidden_masks(forbidden, run / ".masks")
    args += child_view(forbidden).bwrap_args()
    for parent in reversed(run.parents):
        if str(parent) not in made:
            made.add(str(parent))
            args += ["--perms", "0755", "--dir", str(parent)]
    args += ["--ro-bind", str(run), str(run)]
    for sub in ("work", "tmp"):
        args += ["--perms", "1777", "--size", str(limits.scratch), "--tmpfs", f"{run}/{sub}"]
    for w in writable:
        args += ["--bind", str(w), str(w)]
    return args + ["--chdir", f"{run}/work", "--"]
