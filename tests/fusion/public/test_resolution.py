"""Task 6 — Qwen2-VL's resolution budget: resize and token counts equal transformers'
smart_resize (judged in the parent), and a set of images fitted into a context."""

from common import fit_cases, record_fit, record_resize, size_cases

from autograder.harness import graded


def resize_cases(rng):
    return {"sizes": size_cases(rng, 60), "limits": [None, [3136, 1003520], [256 * 28 * 28, 1280 * 28 * 28]]}


@graded(points=4, cases=resize_cases)
def test_resize_and_tokens_match_transformers(rec, cases):
    record_resize(rec, cases)


@graded(points=3, cases=lambda rng: fit_cases(rng, 8))
def test_fit_images_to_context(rec, cases):
    for i, case in enumerate(cases):
        record_fit(rec, i, case)
