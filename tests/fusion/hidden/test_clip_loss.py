"""Task 1 (hidden) — clip_loss and zero_shot_classify on other batches and scales."""

import numpy as np
from common import CLIP_INIT, feature_cases, record_clip_loss, record_zero_shot, zero_shot_cases

from autograder.harness import graded


def loss_cases(rng: np.random.Generator) -> list:
    return feature_cases(rng, 8, [CLIP_INIT, 1.0, -2.0, 2.0, 4.5])


def capped_cases(rng: np.random.Generator) -> list:
    return feature_cases(rng, 4, [4.7, 6.0, 10.0])


@graded(points=4, cases=loss_cases)
def test_clip_loss_values_and_gradients_hidden(rec, cases):
    for i, case in enumerate(cases):
        record_clip_loss(rec, i, case)


@graded(points=2, cases=capped_cases)
def test_clip_loss_caps_the_scale_at_100_hidden(rec, cases):
    for i, case in enumerate(cases):
        record_clip_loss(rec, i, case)


@graded(points=2, cases=lambda rng: zero_shot_cases(rng, 6))
def test_zero_shot_classify_hidden(rec, cases):
    for i, case in enumerate(cases):
        record_zero_shot(rec, i, case)
