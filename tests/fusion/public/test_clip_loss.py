"""Task 1 — clip_loss and zero_shot_classify: CLIP's symmetric InfoNCE, and classes by cosine."""

import numpy as np
from common import CLIP_INIT, feature_cases, record_clip_loss, record_zero_shot, zero_shot_cases

from autograder.harness import graded


def hand_worked_case() -> dict:
    """The handout's 4 x 4 example: one-hot-ish features, scale exp(log 1/0.07)."""
    image = np.array([[1.0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    text = np.array([[1.0, 0.2, 0, 0], [0, 1, 0.5, 0], [0.3, 0, 1, 0], [0, 0, 0.8, 1]])
    return {"image": image, "text": text, "logit_scale": CLIP_INIT, "as_tensor": True}


def loss_cases(rng: np.random.Generator) -> list:
    return [hand_worked_case(), *feature_cases(rng, 7, [CLIP_INIT, 0.0, -0.7, 3.0, 4.0])]


def capped_cases(rng: np.random.Generator) -> list:
    """logit_scale above ln 100 ≈ 4.605: the multiplier is 100 and logit_scale gets no gradient."""
    return feature_cases(rng, 4, [5.0, 7.5])


@graded(points=4, cases=loss_cases)
def test_clip_loss_values_and_gradients(rec, cases):
    for i, case in enumerate(cases):
        record_clip_loss(rec, i, case)


@graded(points=2, cases=capped_cases)
def test_clip_loss_caps_the_scale_at_100(rec, cases):
    for i, case in enumerate(cases):
        record_clip_loss(rec, i, case)


@graded(points=2, cases=lambda rng: zero_shot_cases(rng, 4))
def test_zero_shot_classify(rec, cases):
    for i, case in enumerate(cases):
        record_zero_shot(rec, i, case)
