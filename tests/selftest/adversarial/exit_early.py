# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: end the test process early (sys.exit, os._exit, SIGKILL to itself, atexit lies)."""
import atexit
import os
import signal
import sys

atexit.register(lambda: os._exit(0))


def add(a, b):
    sys.exit(0)


def mean(xs):
    os._exit(0)


def order(xs):
    os.kill(os.getpid(), signal.SIGKILL)
