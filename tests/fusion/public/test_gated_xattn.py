"""Task 4 — tanh-gated cross-attention, and a frozen transformers LM (GPT-2 and Llama configs)
that is exactly itself at initialisation."""

from common import (
    block_cases,
    lm_cases,
    record_block_at_init,
    record_both_gates,
    record_flamingo_at_init,
    record_flamingo_frozen,
    record_gate_scaling,
)

from autograder.harness import graded


@graded(points=2, cases=lambda rng: block_cases(rng, 3))
def test_block_is_identity_at_init(rec, cases):
    for i, case in enumerate(cases):
        record_block_at_init(rec, i, case)


@graded(points=2, cases=lambda rng: block_cases(rng, 3))
def test_gates_scale_by_tanh(rec, cases):
    for i, case in enumerate(cases):
        record_gate_scaling(rec, i, case)


@graded(points=2, cases=lambda rng: block_cases(rng, 3))
def test_both_gates_open(rec, cases):
    for i, case in enumerate(cases):
        record_both_gates(rec, i, case)


@graded(points=3, cases=lambda rng: lm_cases(rng, ["gpt2", "llama"], [1, 2]))
def test_wrapped_lm_equals_bare_lm_at_init(rec, cases):
    for i, case in enumerate(cases):
        record_flamingo_at_init(rec, i, case)


@graded(points=3, cases=lambda rng: lm_cases(rng, ["gpt2", "llama"], [2, 1]))
def test_lm_frozen_only_gates_learn_at_init(rec, cases):
    for i, case in enumerate(cases):
        record_flamingo_frozen(rec, i, case)
