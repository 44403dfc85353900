# ruff: noqa  (hostile code on purpose)
"""Attack on the kernel from a sandboxed child (cold or warm): one call or more of each family
the seccomp filter refuses. Reports test_add's visible message as SEEN{json}SEEN: for each
family, [name, return value, errno, reached] per call.

`reached` says whether the call got past every filter installed before the probe's own: the
probe stacks a filter of its own that hands the call to a listener (SECCOMP_RET_USER_NOTIF),
which an earlier filter's refusal (SECCOMP_RET_ERRNO) outranks. A call that reaches the
listener never runs: the probe closes the listener, and the kernel fails the call with ENOSYS.
So nothing here executes for real, and a refusal by the kernel's own checks (a capability the
child lacks) is told apart from the filter's.
"""
import ctypes
import json
import os
import select
import struct
import threading
import time

MACHINE = os.uname().machine
X86 = MACHINE == "x86_64"
# name: (x86_64, aarch64)
NR = {
    "add_key": (248, 217), "request_key": (249, 218), "keyctl": (250, 219),
    "ptrace": (101, 117), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "perf_event_open": (298, 241), "bpf": (321, 280), "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425), "io_uring_enter": (426, 426), "io_uring_register": (427, 427),
    "mount": (165, 40), "umount2": (166, 39), "pivot_root": (155, 41), "open_tree": (428, 428),
    "move_mount": (429, 429), "fsopen": (430, 430), "fsconfig": (431, 431),
    "fsmount": (432, 432), "fspick": (433, 433), "mount_setattr": (442, 442),
    "unshare": (272, 97), "setns": (308, 268), "clone": (56, 220), "clone3": (435, 435),
    "open_by_handle_at": (304, 265), "name_to_handle_at": (303, 264),
    "kexec_load": (246, 104), "kexec_file_load": (320, 294), "init_module": (175, 105),
    "finit_module": (313, 273), "delete_module": (176, 106), "seccomp": (317, 277),
}
NR = {k: v[0 if X86 else 1] for k, v in NR.items()}
SIGCHLD = 17
FAMILIES = {
    "keyrings": [("add_key", b"user", b"leak", b"secret", 6, -4 & 0xFFFFFFFF),
                 ("request_key", b"user", b"leak", 0, 0),
                 ("keyctl", 0, -4 & 0xFFFFFFFF, 1)],  # KEYCTL_GET_KEYRING_ID(@u, create)
    "ptrace": [("ptrace", 0, 0, 0, 0),  # PTRACE_TRACEME
               ("ptrace", 16, 1, 0, 0)],  # PTRACE_ATTACH to pid 1
    "process_vm": [("process_vm_readv", "self"), ("process_vm_writev", "self")],
    "perf": [("perf_event_open", 0, 0, -1, -1, 0)],
    "bpf": [("bpf", 5, 0, 0)],  # BPF_PROG_LOAD
    "userfaultfd": [("userfaultfd", 1)],  # UFFD_USER_MODE_ONLY: no privilege needed
    "io_uring": [("io_uring_setup", 1, 0), ("io_uring_enter", 0, 1, 0, 0, 0, 0),
                 ("io_uring_register", 0, 0, 0, 0)],
    "mounts": [("mount", b"none", b"/tmp", b"tmpfs", 0, 0), ("umount2", b"/usr", 2),
               ("pivot_root", b"/tmp", b"/tmp"), ("open_tree", -100, b"/", 1),
               ("move_mount", -1, b"", -100, b"/tmp", 4), ("fsopen", b"tmpfs", 0),
               ("fsconfig", 0, 6, 0, 0, 0), ("fsmount", 0, 0, 0), ("fspick", -100, b"/", 0),
               ("mount_setattr", -100, b"/", 0, 0, 0)],
    "unshare_setns": [("unshare", 0x10000000), ("unshare", 0x00020000), ("setns", 0, 0)],
    "clone_namespaces": [("clone", flag | SIGCHLD, 0, 0, 0, 0)
                         for flag in (0x10000000, 0x00020000, 0x40000000, 0x20000000,
                                      0x08000000, 0x04000000, 0x02000000)],
    "clone3": [("clone3", 0, 64)],
    "file_handles": [("open_by_handle_at", -100, 0, 0), ("name_to_handle_at", -100, b"/", 0, 0, 0)],
    "kexec_modules": [("kexec_load", 0, 0, 0, 0), ("kexec_file_load", -1, -1, 0, 0, 0),
                      ("init_module", 0, 0, b""), ("finit_module", -1, b"", 0),
                      ("delete_module", b"ext4", 0)],
}
libc = ctypes.CDLL(None, use_errno=True)


def arg(a):
    if isinstance(a, bytes):
        return ctypes.c_char_p(a)
    return ctypes.c_long(a)


def listener(nr):
    """Stack a filter handing `nr` to a new listener (clone: only with a CLONE_NEW* flag;
    clone3: only with the size 64, as the threads this probe starts use both, clone3 with
    glibc's size); its fd, or -1."""
    notify, allow = (0x06, 0, 0, 0x7FC00000), (0x06, 0, 0, 0x7FFF0000)
    if nr == NR["clone"]:
        prog = [(0x20, 0, 0, 0), (0x15, 0, 3, nr), (0x20, 0, 0, 16), (0x45, 0, 1, 0x7E020000),
                notify, allow]
    elif nr == NR["clone3"]:
        prog = [(0x20, 0, 0, 0), (0x15, 0, 3, nr), (0x20, 0, 0, 24), (0x15, 0, 1, 64),
                notify, allow]
    else:
        prog = [(0x20, 0, 0, 0), (0x15, 0, 1, nr), notify, allow]
    raw = b"".join(struct.pack("=HBBI", *i) for i in prog)
    buf = ctypes.create_string_buffer(raw, len(raw))
    fprog = struct.pack("=HxxxxxxQ", len(prog), ctypes.addressof(buf))
    fbuf = ctypes.create_string_buffer(fprog, len(fprog))
    # SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER
    return libc.syscall(ctypes.c_long(NR["seccomp"]), ctypes.c_long(1), ctypes.c_long(8), fbuf)


def vm_args():
    class iovec(ctypes.Structure):
        _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
    src, dst = ctypes.create_string_buffer(b"x" * 16), ctypes.create_string_buffer(16)
    local, remote = iovec(ctypes.addressof(dst), 16), iovec(ctypes.addressof(src), 16)
    keep = (src, dst, local, remote)
    return [ctypes.c_long(os.getpid()), ctypes.byref(local), ctypes.c_long(1),
            ctypes.byref(remote), ctypes.c_long(1), ctypes.c_long(0)], keep


def probe(name, *args):
    fd = listener(NR[name])
    if fd < 0:
        return [name, None, ctypes.get_errno(), "no listener"]
    keep = None
    if args == ("self",):
        call_args, keep = vm_args()
    else:
        call_args = [arg(a) for a in args]
    out = {}

    def call():
        r = libc.syscall(ctypes.c_long(NR[name]), *call_args)
        out["r"], out["e"] = r, ctypes.get_errno() if r < 0 else 0

    t = threading.Thread(target=call, daemon=True)
    t.start()
    reached, deadline = False, time.monotonic() + 10
    while t.is_alive() and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.01)[0]:
            reached = True
            break
    os.close(fd)  # a call waiting on the listener now fails with ENOSYS
    t.join(10)
    return [name, out.get("r"), out.get("e"), reached]


SEEN = {family: [probe(*call) for call in calls] for family, calls in FAMILIES.items()}


def add(a, b):
    raise RuntimeError("SEEN" + json.dumps(SEEN) + "SEEN")


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
