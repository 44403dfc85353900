"""Toy package: three small functions."""


def add(a: float, b: float) -> float:
    raise NotImplementedError


def mean(xs: list[float]) -> float:
    raise NotImplementedError


def order(xs: list[int]) -> list[int]:
    """Indices that sort xs ascending (ties in any order)."""
    raise NotImplementedError
