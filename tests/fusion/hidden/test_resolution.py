"""Task 6 (hidden) — resize, token counts and fitting on other sizes and limits."""

import numpy as np
from common import fit_cases, record_fit, record_resize, size_cases

from autograder.harness import graded


def exact_fit_cases(rng: np.random.Generator, n: int) -> list[dict]:
    """Sets whose default resizes take exactly the budget (defaults kept: "at most max_tokens"),
    each with an image whose default is exactly max_pixels (1,280 tokens: 28a x 28b with
    a b = 1280), the one a search over smaller max_pixels would shrink. Sides are within 13 px of
    a multiple of 28 and the rounded areas within [min_pixels, max_pixels], so each default is
    the rounded size and its tokens are a b."""
    full = [(32, 40), (40, 32), (20, 64), (64, 20), (16, 80), (80, 16)]
    cases = []
    for _ in range(n):
        grid = [full[int(rng.integers(len(full)))]]
        for _ in range(int(rng.integers(0, 4))):
            a = int(rng.integers(2, 40))
            grid.append((a, int(rng.integers(2, min(1280 // a, 40 * a) + 1))))
        order = rng.permutation(len(grid))
        sizes = [[28 * grid[k][0] + int(rng.integers(-13, 14)), 28 * grid[k][1] + int(rng.integers(-13, 14))]
                 for k in order]
        cases.append({"sizes": sizes, "max_tokens": sum(a * b for a, b in grid)})
    return cases


def resize_cases(rng):
    limits = [None, [4 * 28 * 28, 16384 * 28 * 28], [100 * 28 * 28, 500 * 28 * 28]]
    return {"sizes": size_cases(rng, 120), "limits": limits}


@graded(points=4, cases=resize_cases)
def test_resize_and_tokens_match_transformers_hidden(rec, cases):
    record_resize(rec, cases)


@graded(points=3, cases=lambda rng: fit_cases(rng, 12) + exact_fit_cases(rng, 3))
def test_fit_images_to_context_hidden(rec, cases):
    for i, case in enumerate(cases):
        record_fit(rec, i, case)
