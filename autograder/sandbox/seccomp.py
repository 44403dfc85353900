"""The seccomp filter every sandboxed child runs under, on every path (SPEC §3, "No channel
between children"): the cold chain (bubblewrap's `--seccomp FD`), the warm child (the zygote's
fork loads the same program after no_new_privs, before boot), the holder a warm child enters
(inside bubblewrap, like a cold child), the chain without bubblewrap (this file run as a
program: `python -I -S seccomp.py FD ARGV...` loads the program from FD and execs ARGV), and a
container (`docker_profile`, the same rules as a Docker seccomp profile).

A deny list after Docker's default profile (moby/profiles seccomp/default.json: what it
withholds from a container without capabilities) and nsjail's: every entry of `RULES` is a
syscall a test child never needs, with the reason it is refused (docs/SECURITY.md has the
table). The rest is allowed: torch, numpy, gloo, multiprocessing and transformers run
unchanged. clone3 answers ENOSYS (its flags sit behind a pointer the filter cannot read; glibc
then falls back to clone, whose flags it can); every other entry EPERM. A call from another
architecture (x86's 32-bit ABI on x86_64, arm's on aarch64) or x86_64's x32 ABI kills the
process: the numbers below would mean other calls there.

`program(machine)` is the classic BPF (`struct sock_filter[]`, what bubblewrap reads and
PR_SET_SECCOMP takes), assembled here: a check of the architecture, one compare per entry, the
argument tests of `clone`, `socket` and `personality`, allow. May import: the standard library
only (it also runs as a program under `-I -S`).
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass

EPERM, ENOSYS = 1, 38
RET_KILL_PROCESS, RET_ERRNO, RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
X32_SYSCALL_BIT = 0x40000000  # x86_64's x32 ABI: the number with this bit set
CLONE_NEW = {"CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000,
             "CLONE_NEWUTS": 0x04000000, "CLONE_NEWIPC": 0x08000000,
             "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
             "CLONE_NEWNET": 0x40000000}
ANY_CLONE_NEW = sum(CLONE_NEW.values())  # 0x7E020000, Docker's mask
AF_ALG, AF_VSOCK = 38, 40
PERSONA_ALLOWED_BITS = 0x0020008  # PER_LINUX32 | UNAME26: Docker's allowed personas, and 0

# syscall: (x86_64 number, aarch64 number; None where the architecture has no such call)
NUMBERS: dict[str, tuple[int | None, int | None]] = {
    "add_key": (248, 217), "request_key": (249, 218), "keyctl": (250, 219),
    "ptrace": (101, 117), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "process_madvise": (440, 440), "pidfd_getfd": (438, 438), "kcmp": (312, 272),
    "perf_event_open": (298, 241), "bpf": (321, 280), "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425), "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "mount": (165, 40), "umount2": (166, 39), "pivot_root": (155, 41), "chroot": (161, 51),
    "open_tree": (428, 428), "open_tree_attr": (467, 467), "move_mount": (429, 429),
    "fsopen": (430, 430), "fsconfig": (431, 431), "fsmount": (432, 432), "fspick": (433, 433),
    "mount_setattr": (442, 442),
    "unshare": (272, 97), "setns": (308, 268), "clone": (56, 220), "clone3": (435, 435),
    "open_by_handle_at": (304, 265), "name_to_handle_at": (303, 264),
    "kexec_load": (246, 104), "kexec_file_load": (320, 294), "init_module": (175, 105),
    "finit_module": (313, 273), "delete_module": (176, 106),
    "acct": (163, 89), "swapon": (167, 224), "swapoff": (168, 225), "reboot": (169, 142),
    "settimeofday": (164, 170), "clock_settime": (227, 112), "sethostname": (170, 161),
    "setdomainname": (171, 162), "syslog": (103, 116), "quotactl": (179, 60),
    "quotactl_fd": (443, 443), "vhangup": (153, 58), "lookup_dcookie": (212, 18),
    "fanotify_init": (300, 262), "iopl": (172, None), "ioperm": (173, None),
    "uselib": (134, None),
    "mq_open": (240, 180), "personality": (135, 92), "socket": (41, 198),
}


@dataclass(frozen=True)
class Rule:
    """Refuse `names` (with `errno`) always, or only when the first argument's low 32 bits
    have a bit of `any_bits` set, or equal one of `one_of`."""

    family: str
    names: tuple[str, ...]
    reason: str
    errno: int = EPERM
    any_bits: int = 0
    one_of: tuple[int, ...] = ()


RULES: tuple[Rule, ...] = (
    Rule("keyrings", ("add_key", "request_key", "keyctl"),
         "the user keyring belongs to the uid, not the process: a key outlives the child and "
         "waits for the next child of that uid"),
    Rule("tracing", ("ptrace",),
         "reads and steers another process of the uid (a holder, a sibling), which may hold "
         "what the filter refuses this one"),
    Rule("other processes' memory", ("process_vm_readv", "process_vm_writev",
                                     "process_madvise", "pidfd_getfd", "kcmp"),
         "reads, writes, reclaims or takes the fds of another process, or compares its "
         "kernel objects: ptrace's reach without ptrace"),
    Rule("perf", ("perf_event_open",),
         "hardware counters and kernel events: precise side channels on other processes and a "
         "large kernel surface"),
    Rule("bpf", ("bpf",), "loads programs into the kernel"),
    Rule("userfaultfd", ("userfaultfd",),
         "stalls the kernel on a page fault of the caller's choosing: the usual way to win a "
         "kernel race"),
    Rule("io_uring", ("io_uring_setup", "io_uring_enter", "io_uring_register"),
         "a second way into the kernel whose operations no seccomp filter sees"),
    Rule("mounts", ("mount", "umount2", "pivot_root", "chroot", "open_tree", "open_tree_attr",
                    "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr"),
         "changes what the sandbox's mount namespace shows (a mask lifted, the root moved)"),
    Rule("namespaces", ("unshare", "setns"),
         "a new namespace, or another's: inside a user namespace of its own a chroot is undone "
         "and mount works (the child enters its namespaces before the filter, never after)"),
    Rule("namespaces", ("clone",),
         "a child process in new namespaces (any CLONE_NEW* flag); clone without them is how "
         "threads and processes start", any_bits=ANY_CLONE_NEW),
    Rule("namespaces", ("clone3",),
         "its flags are behind a pointer the filter cannot read: ENOSYS, so glibc falls back "
         "to clone", errno=ENOSYS),
    Rule("message queues", ("mq_open",),
         "a POSIX message queue outlives its child: where the child shares the host's IPC "
         "namespace (no bubblewrap) the next child would find it; no test uses one"),
    Rule("file handles", ("open_by_handle_at", "name_to_handle_at"),
         "opens a file by its handle, past every path and mount that hides it"),
    Rule("kexec and modules", ("kexec_load", "kexec_file_load", "init_module", "finit_module",
                               "delete_module"),
         "replaces the running kernel or changes its code"),
    Rule("host administration", ("acct", "swapon", "swapoff", "reboot", "settimeofday",
                                 "clock_settime", "sethostname", "setdomainname", "syslog",
                                 "quotactl", "quotactl_fd", "vhangup", "lookup_dcookie",
                                 "fanotify_init", "iopl", "ioperm", "uselib"),
         "administers the machine (accounting, swap, reboot, the clock, the kernel log, quotas, "
         "terminals, ports, watching every file): no test does"),
    Rule("personality", ("personality",),
         "an execution domain beyond Linux, PER_LINUX32 and UNAME26 (ADDR_NO_RANDOMIZE turns "
         "address randomisation off for what the child starts)", any_bits=~PERSONA_ALLOWED_BITS
         & 0xFFFFFFFF),
    Rule("sockets", ("socket",),
         "AF_VSOCK reaches the hypervisor's host past every network namespace; AF_ALG is the "
         "kernel's crypto interface", one_of=(AF_ALG, AF_VSOCK)),
)

LD_W_ABS, JEQ_K, JGE_K, JSET_K, RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
NR, ARCH, ARG0 = 0, 4, 16  # offsets in struct seccomp_data (little-endian on both machines)


def supported(machine: str | None = None) -> bool:
    return (machine or os.uname().machine) in AUDIT_ARCH


def _rule_block(rule: Rule) -> list[tuple[int, int, int, int]]:
    """The instructions run once the number matched one of the rule's calls: they return."""
    refuse = (RET_K, 0, 0, RET_ERRNO | rule.errno)
    if rule.any_bits:
        return [(LD_W_ABS, 0, 0, ARG0), (JSET_K, 0, 1, rule.any_bits), refuse,
                (RET_K, 0, 0, RET_ALLOW)]
    if rule.one_of:
        n = len(rule.one_of)
        tests = [(JEQ_K, n - i, 0, v) for i, v in enumerate(rule.one_of)]
        return [(LD_W_ABS, 0, 0, ARG0), *tests, (RET_K, 0, 0, RET_ALLOW), refuse]
    return [refuse]


def program(machine: str | None = None) -> bytes:
    """The filter for `machine` (this one by default) as struct sock_filter[] bytes."""
    machine = machine or os.uname().machine
    column = list(AUDIT_ARCH).index(machine)
    prog = [(LD_W_ABS, 0, 0, ARCH), (JEQ_K, 1, 0, AUDIT_ARCH[machine]),
            (RET_K, 0, 0, RET_KILL_PROCESS), (LD_W_ABS, 0, 0, NR)]
    if machine == "x86_64":
        prog += [(JGE_K, 0, 1, X32_SYSCALL_BIT), (RET_K, 0, 0, RET_KILL_PROCESS)]
    for rule in RULES:
        block = _rule_block(rule)
        for name in rule.names:
            nr = NUMBERS[name][column]
            if nr is not None:
                prog += [(JEQ_K, 0, len(block), nr), *block]
    prog.append((RET_K, 0, 0, RET_ALLOW))
    return b"".join(struct.pack("=HBBI", *ins) for ins in prog)


def program_fd(machine: str | None = None) -> int:
    """A file descriptor (close-on-exec; pass it on explicitly) reading the program from its
    start: what `bwrap --seccomp FD` and this module's loader read."""
    fd = os.memfd_create("seccomp", os.MFD_CLOEXEC)
    os.write(fd, program(machine))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def docker_profile() -> str:
    """The rules as a Docker seccomp profile (JSON): allow by default, the entries refused with
    their errno, on x86_64 and aarch64 only (a call of any other ABI is refused by the runtime's
    bad-architecture action)."""
    syscalls: list[dict] = []
    for rule in RULES:
        base = {"names": list(rule.names), "action": "SCMP_ACT_ERRNO", "errnoRet": rule.errno}
        if rule.any_bits:  # one rule per bit: a bit set in the first argument refuses it
            bits = [1 << b for b in range(32) if rule.any_bits >> b & 1]
            syscalls += [{**base, "args": [{"index": 0, "value": bit, "valueTwo": bit,
                                            "op": "SCMP_CMP_MASKED_EQ"}]} for bit in bits]
        elif rule.one_of:
            syscalls += [{**base, "args": [{"index": 0, "value": v, "op": "SCMP_CMP_EQ"}]}
                         for v in rule.one_of]
        else:
            syscalls.append(base)
    return json.dumps({"defaultAction": "SCMP_ACT_ALLOW",
                       "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_AARCH64"],
                       "syscalls": syscalls})


def load(prog: bytes) -> None:
    """Set no_new_privs and install `prog` on the calling thread (before any other starts);
    raises OSError when the kernel refuses either."""
    import ctypes

    lib = ctypes.CDLL(None, use_errno=True)
    args = [ctypes.c_ulong(0)] * 3
    if lib.prctl(ctypes.c_int(38), ctypes.c_ulong(1), *args) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
    buf = ctypes.create_string_buffer(prog, len(prog))
    fprog = struct.pack("=HxxxxxxQ", len(prog) // 8, ctypes.addressof(buf))
    fbuf = ctypes.create_string_buffer(fprog, len(fprog))
    if lib.prctl(ctypes.c_int(22), ctypes.c_ulong(2), ctypes.c_void_p(ctypes.addressof(fbuf)),
                 ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:  # PR_SET_SECCOMP, FILTER
        raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP")


def main(argv: list[str]) -> None:
    """`seccomp.py FD ARGV...`: load the program FD holds, close FD, exec ARGV (PATH not
    searched). A failure exits 71 with one line on stderr: the program never runs unfiltered."""
    import sys

    try:
        fd = int(argv[0])
        with os.fdopen(fd, "rb") as f:
            prog = f.read()
        if not prog or len(prog) % 8:
            raise OSError("no filter program")
        load(prog)
        os.execv(argv[1], argv[1:])
    except (OSError, ValueError, IndexError) as e:
        sys.stderr.write(f"seccomp: {e}\n")
        sys.stderr.flush()
        os._exit(71)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
