"""Task 6 (hidden) — resize, token counts and fitting on other sizes and limits."""

from common import exact_fit_cases, fit_cases, record_fit, record_resize, size_cases

from autograder.harness import graded


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
