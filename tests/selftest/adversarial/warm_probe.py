# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_warm.py)
"""Attack on the warm path (a zygote's fork that entered a holder's sandbox): everything a
fork could reach of the zygote, the host or other runs. Reports what succeeded in test_add's
visible message as SEEN{json}SEEN (each key true where the attack got through).

zygote_memory: /proc/PID/mem, process_vm_readv and ptrace attach of the parent and of the
zygote's host pid. fds: an inherited fd (a socket, a namespace, a folder). host_root: the
canary file on the host through its path, `..`, /proc/self/root, /proc/self/cwd, /proc/1/root.
other_runs: another run folder under /tmp; processes: the zygote or the grader in /proc
(its own parent aside).
userns: unshare(CLONE_NEWUSER). rng: the first draws of random and numpy.random (compared
across two children by the test).
"""
import ctypes
import json
import os
import random
import sys

import numpy

ZYGOTE_PID = __ZYGOTE_PID__
CANARY = "__CANARY__"
DECOY = "__DECOY__"
libc = ctypes.CDLL(None, use_errno=True)
SEEN = {}


def read_memory(pid):
    if pid <= 0:
        return False
    try:
        with open(f"/proc/{pid}/maps") as f:
            start = int(f.readline().split("-")[0], 16)
    except (OSError, ValueError):
        start = 0
    try:
        with open(f"/proc/{pid}/mem", "rb") as f:
            f.seek(start)
            if f.read(16):
                return True
    except (OSError, ValueError, OverflowError):
        pass

    class iovec(ctypes.Structure):
        _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]

    buf = ctypes.create_string_buffer(16)
    local, remote = iovec(ctypes.addressof(buf), 16), iovec(start or 0x400000, 16)
    if libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) > 0:
        return True
    if libc.ptrace(16, pid, 0, 0) == 0:  # PTRACE_ATTACH
        libc.ptrace(17, pid, 0, 0)  # PTRACE_DETACH
        return True
    return False


SEEN["zygote_memory"] = read_memory(os.getppid()) or read_memory(ZYGOTE_PID)

fds = []
try:
    listed = os.listdir("/proc/self/fd")
except OSError:  # outside the PID namespace of its /proc
    listed = [str(fd) for fd in range(3, 256)]
for fd in listed:
    try:
        link = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        try:
            os.fstat(int(fd))
            link = "socket:?" if int(fd) > 2 else ""
        except OSError:
            continue
    if link.startswith(("socket:", "mnt:", "net:", "pid:", "user:", "ipc:", "uts:", "cgroup:")) \
            or (link.startswith("/") and os.path.isdir(link) and link != "/proc/self/fd"
                and not link.startswith("/proc/")):
        fds.append(link)
SEEN["fds"] = fds


def readable(path):
    try:
        with open(path) as f:
            return f.read().startswith("untouched")
    except OSError:
        return False


host = [p for p in (CANARY, "/proc/self/root" + CANARY, "/proc/self/cwd/" + "../" * 20 + CANARY,
                    "/proc/1/root" + CANARY) if readable(p)]
here = os.open(".", os.O_RDONLY)
try:
    for _ in range(30):
        os.chdir("..")
    if readable("." + CANARY):
        host.append("..")
finally:
    os.fchdir(here)
SEEN["host_root"] = host

run = os.path.dirname(os.path.abspath(sys.argv[1]))
try:
    SEEN["other_runs"] = os.path.exists(DECOY) or any(
        e.startswith("grade-") and os.path.join("/tmp", e) != run for e in os.listdir("/tmp"))
except OSError:
    SEEN["other_runs"] = False

found = []
for pid in os.listdir("/proc"):
    # (its own parent is the warm child's in-namespace waiter: a copy of itself, non-dumpable)
    if not pid.isdigit() or int(pid) in (os.getpid(), os.getppid()):
        continue
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read()
    except OSError:
        continue
    if b"zygote.py" in cmd or b"pytest" in cmd:
        found.append(pid)
SEEN["processes"] = found

SEEN["userns"] = libc.unshare(0x10000000) == 0
SEEN["rng"] = [random.random(), float(numpy.random.random())]


def add(a, b):
    raise RuntimeError("SEEN" + json.dumps(SEEN) + "SEEN")


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
