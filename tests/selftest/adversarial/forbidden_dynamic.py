# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: import the assignment's forbidden module (statistics) by a computed name, after
removing the harness's import blocker; use it to answer the hidden test."""
import importlib
import sys

sys.meta_path[:] = [f for f in sys.meta_path if "Forbidden" not in type(f).__name__]
try:
    stats = importlib.import_module("".join(["stat", "istics"]))
    fmean = stats.fmean
except Exception:
    fmean = None


def add(a, b):
    raise NotImplementedError


def mean(xs):
    if fmean is None:
        raise NotImplementedError
    if not xs:
        raise ValueError
    return fmean(xs)


def order(xs):
    raise NotImplementedError
