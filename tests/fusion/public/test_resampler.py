"""Task 3 — PerceiverResampler: any number of media tokens in, num_latents out, order-free."""

from common import record_default_latents, record_resampler, resampler_cases

from autograder.harness import graded


@graded(points=5, cases=lambda rng: resampler_cases(rng, 4))
def test_resampler_shape_and_permutation_invariance(rec, cases):
    record_default_latents(rec, dim=16, tokens=5)
    for i, case in enumerate(cases):
        record_resampler(rec, i, case)
