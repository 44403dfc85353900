# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: memory bomb, in one process and spread over several (each under any per-process
address-space limit)."""
import os


def _eat(step=64 * 2**20):
    hog = []
    while True:
        hog.append(bytearray(step))  # zero-filled: every page is touched


def add(a, b):
    for _ in range(6):
        if os.fork() == 0:
            _eat()
    _eat()


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
