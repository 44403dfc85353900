# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_seccomp.py)
"""Attack on the warm child's holder (the process whose namespaces it entered, pid 2 of its
PID namespace: `sh -c 'echo ready; read -r line'`) and on its zygote (ZYGOTE_PID, the host's
pid): signal (kill with signal 0: the permission check alone), ptrace attach,
process_vm_readv and /proc/PID/mem. Reports test_add's visible message as SEEN{json}SEEN:
per target, what got through (true) and the uids seen."""
import ctypes
import json
import os

ZYGOTE_PID = __ZYGOTE_PID__
libc = ctypes.CDLL(None, use_errno=True)


class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def holder_pid():
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    argv = f.read().split(b"\0")
                if argv[0].endswith(b"sh") and b"read -r line" in argv[-2]:  # not bwrap's init
                    return int(pid)
            except OSError:
                pass
    return -1


def uid_of(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return int(next(ln for ln in f if ln.startswith("Uid:")).split()[1])
    except (OSError, StopIteration):
        return None


def attack(pid):
    got = {"found": pid > 0, "uid": uid_of(pid)}
    if pid <= 0:
        return got
    got["kill"] = libc.kill(pid, 0) == 0
    got["ptrace"] = libc.ptrace(16, pid, 0, 0) == 0  # PTRACE_ATTACH
    if got["ptrace"]:
        libc.ptrace(17, pid, 0, 0)  # PTRACE_DETACH
    buf = ctypes.create_string_buffer(16)
    local, remote = iovec(ctypes.addressof(buf), 16), iovec(0x400000, 16)
    got["process_vm_readv"] = libc.process_vm_readv(pid, ctypes.byref(local), 1,
                                                    ctypes.byref(remote), 1, 0) > 0 \
        or ctypes.get_errno() == 14  # EFAULT: allowed, only the address was wrong
    try:
        with open(f"/proc/{pid}/mem", "rb") as f:
            got["mem"] = True
    except OSError:
        got["mem"] = False
    return got


SEEN = {"self_uid": os.getuid(), "holder": attack(holder_pid()), "zygote": attack(ZYGOTE_PID)}


def add(a, b):
    raise RuntimeError("SEEN" + json.dumps(SEEN) + "SEEN")


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
