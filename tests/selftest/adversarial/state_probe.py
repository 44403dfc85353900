# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_seccomp.py)
"""Per-uid and per-namespace kernel state left by one child for the next (MODE "leave" in the
first child, "look" in the next child of the same grader process): a System V message queue
and a POSIX message queue (mode 0666, under KEY / NAME), inotify instances held by a daemon
that tries to outlive the child, a key in the uid's user keyring. Reports test_add's visible
message as SEEN{json}SEEN: the child's uid, and per object what the call returned (errno)."""
import ctypes
import json
import os
import time

MODE = "__MODE__"
KEY = __KEY__
NAME = b"/__NAME__"
libc = ctypes.CDLL(None, use_errno=True)
X86 = os.uname().machine == "x86_64"
ADD_KEY, KEYCTL = (248, 250) if X86 else (217, 219)
USER_KEYRING = -4 & 0xFFFFFFFF
SEEN = {"uid": os.getuid()}


def result(r):
    return [r, ctypes.get_errno() if r < 0 else 0]


def inotify_count(limit=1024):
    fds = []
    while len(fds) < limit:
        fd = libc.inotify_init1(0o2000000)  # IN_CLOEXEC
        if fd < 0:
            break
        fds.append(fd)
    return fds


if MODE == "leave":
    SEEN["msgget"] = result(libc.msgget(KEY, 0o1000 | 0o666))  # IPC_CREAT
    SEEN["mq_open"] = result(libc.mq_open(NAME, os.O_CREAT | os.O_RDWR, 0o666, None))
    SEEN["add_key"] = result(libc.syscall(ctypes.c_long(ADD_KEY), b"user", b"leak", b"secret",
                                          ctypes.c_long(6), ctypes.c_long(USER_KEYRING)))
    SEEN["inotify"] = len(inotify_count())
    if os.fork() == 0:  # a daemon holding the instances, left behind
        os.setsid()
        if os.fork() == 0:
            held = inotify_count()
            time.sleep(600)
        os._exit(0)
    time.sleep(0.2)
else:
    SEEN["msgget"] = result(libc.msgget(KEY, 0))
    SEEN["mq_open"] = result(libc.mq_open(NAME, os.O_RDONLY))
    SEEN["keyctl_search"] = result(libc.syscall(ctypes.c_long(KEYCTL), ctypes.c_long(10),
                                                ctypes.c_long(USER_KEYRING), b"user", b"leak",
                                                ctypes.c_long(0)))  # KEYCTL_SEARCH
    SEEN["inotify"] = len(inotify_count())


def add(a, b):
    raise RuntimeError("SEEN" + json.dumps(SEEN) + "SEEN")


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
