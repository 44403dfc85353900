# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_warm.py)
"""Attack on the warm path: a double-forked process that outlives the run (it sleeps with a
marker in its command line, which the test looks for on the host afterwards)."""
import os
import sys

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)",
                                  "__MARKER__"])
    os._exit(0)
os.wait()


def add(a, b):
    raise NotImplementedError


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
