# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_warm.py)
"""Attack on the warm path: signal the zygote (the fork's parent, and the zygote's host pid)
so that the next student's children cannot start or are graded wrong."""
import os
import signal

for target in (__ZYGOTE_PID__, os.getppid()):
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        try:
            if target > 0:
                os.kill(target, sig)
        except OSError:
            pass


def add(a, b):
    raise NotImplementedError


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
