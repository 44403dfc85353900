# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: values whose __eq__/__lt__/__bool__/__float__/__array__ lie to any comparison."""
import numpy as np


class Liar(float):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __lt__(self, other):
        return False

    __le__ = __ge__ = __gt__ = __eq__

    def __bool__(self):
        return True

    def __hash__(self):
        return 0

    def __float__(self):
        return float("nan")

    def __array__(self, *args, **kwargs):
        return np.array(np.nan)


class LiarArray(np.ndarray):
    def __eq__(self, other):
        return np.ones(np.shape(other), bool)

    def __bool__(self):
        return True


class LiarList(list):
    def __eq__(self, other):
        return True

    def __len__(self):
        return 12

    def __iter__(self):
        return iter(range(12))


def add(a, b):
    return Liar(0)


def mean(xs):
    return np.zeros(1).view(LiarArray)


def order(xs):
    return LiarList()
