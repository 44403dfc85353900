"""Reference toy package."""


def add(a: float, b: float) -> float:
    return a + b


def mean(xs: list[float]) -> float:
    if not xs:
        raise ValueError("mean of nothing")
    return sum(xs) / len(xs)


def order(xs: list[int]) -> list[int]:
    """Indices that sort xs ascending (ties in any order)."""
    return sorted(range(len(xs)), key=lambda i: xs[i])
