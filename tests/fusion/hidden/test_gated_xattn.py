"""Task 4 (hidden) — gated cross-attention and the frozen LM on other sizes and placements."""

from common import (
    block_cases,
    lm_cases,
    record_block_at_init,
    record_flamingo_at_init,
    record_flamingo_frozen,
    record_gate_scaling,
)

from autograder.harness import graded


@graded(points=2, cases=lambda rng: block_cases(rng, 4))
def test_block_is_identity_at_init_hidden(rec, cases):
    for i, case in enumerate(cases):
        record_block_at_init(rec, i, case)


@graded(points=2, cases=lambda rng: block_cases(rng, 4))
def test_gates_scale_by_tanh_hidden(rec, cases):
    for i, case in enumerate(cases):
        record_gate_scaling(rec, i, case)


@graded(points=3, cases=lambda rng: lm_cases(rng, ["llama", "gpt2"], [3, 1]))
def test_wrapped_lm_equals_bare_lm_at_init_hidden(rec, cases):
    for i, case in enumerate(cases):
        record_flamingo_at_init(rec, i, case)


@graded(points=3, cases=lambda rng: lm_cases(rng, ["llama", "gpt2"], [1, 3]))
def test_lm_frozen_only_gates_learn_at_init_hidden(rec, cases):
    for i, case in enumerate(cases):
        record_flamingo_frozen(rec, i, case)
