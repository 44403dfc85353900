# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: kill the grader (the parent, its process group, its known pid)."""
import os
import signal

for target in (os.getppid(), __GRADER_PID__):
    for sig in (signal.SIGKILL, signal.SIGTERM):
        try:
            os.kill(target, sig)
        except OSError:
            pass
try:
    os.killpg(os.getpgid(os.getppid()), signal.SIGKILL)
except OSError:
    pass


def add(a, b):
    raise NotImplementedError


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
