"""Toy starter."""


def add(a: float, b: float) -> float:
    raise NotImplementedError


def mean(xs: list[float]) -> float:
    raise NotImplementedError


def order(xs: list[int]) -> list[int]:
    raise NotImplementedError
