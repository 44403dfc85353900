# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: endless waits inside C code that ignore Python signal handling."""
import ctypes
import signal

for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGHUP):
    signal.signal(sig, signal.SIG_IGN)
libc = ctypes.CDLL(None)


def add(a, b):
    signal.pthread_sigmask(signal.SIG_BLOCK, range(1, signal.NSIG))
    libc.pause()  # blocks forever in C


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
