"""Task 3 (hidden) — PerceiverResampler on other sizes."""

from common import record_default_latents, record_resampler, record_zero_parameters, resampler_cases

from autograder.harness import graded


@graded(points=5, cases=lambda rng: resampler_cases(rng, 5))
def test_resampler_shape_and_permutation_invariance_hidden(rec, cases):
    record_default_latents(rec, dim=8, tokens=100)
    for i, case in enumerate(cases):
        record_resampler(rec, i, case)
        record_zero_parameters(rec, i, case)
