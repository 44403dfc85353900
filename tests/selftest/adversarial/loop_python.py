# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: endless Python loop that swallows every exception (including KeyboardInterrupt)."""
import signal

signal.signal(signal.SIGTERM, signal.SIG_IGN)


def add(a, b):
    while True:
        try:
            while True:
                pass
        except BaseException:
            continue


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
