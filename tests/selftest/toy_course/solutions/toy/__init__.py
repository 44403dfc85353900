"""Toy package: three small functions."""


def add(a: float, b: float) -> float:
    ### BEGIN SOLUTION
    return a + b
    ### END SOLUTION


def mean(xs: list[float]) -> float:
    ### BEGIN SOLUTION
    if not xs:
        raise ValueError("mean of nothing")
    return sum(xs) / len(xs)
    ### END SOLUTION


def order(xs: list[int]) -> list[int]:
    """Indices that sort xs ascending (ties in any order)."""
    ### BEGIN SOLUTION
    return sorted(range(len(xs)), key=lambda i: xs[i])
    ### END SOLUTION
