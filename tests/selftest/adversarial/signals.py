# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: signals: stop the grader, stop its own process group, ignore/mask everything."""
import os
import signal

for target in (os.getppid(), __GRADER_PID__):
    try:
        os.kill(target, signal.SIGSTOP)
    except OSError:
        pass


def add(a, b):
    os.kill(0, signal.SIGSTOP)  # the whole process group stops: nothing more gets reported


def mean(xs):
    os.kill(os.getpid(), signal.SIGSEGV)


def order(xs):
    raise NotImplementedError
