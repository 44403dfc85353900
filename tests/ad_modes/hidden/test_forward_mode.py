"""Task 1 (hidden): Dual arithmetic and jvp on other inputs and functions."""

from common import (
    ARITHMETIC,
    dual_cases,
    function_case,
    record_dual_arithmetic,
    record_dual_ops,
    record_jvps,
)

from autograder.harness import graded


@graded(points=2, cases=dual_cases)
def test_dual_arithmetic_hidden(rec, cases):
    record_dual_arithmetic(rec, cases, list(ARITHMETIC))


@graded(points=2, cases=dual_cases)
def test_ops_on_duals_hidden(rec, cases):
    record_dual_ops(rec, cases)


def jvp_cases(rng):
    return [function_case(rng, name) for name in
            ("fanout", "softmax_ops", "inner", "vecmat", "square_mat", "sum_axis0",
             "sum_axis1", "diamonds")]


@graded(points=4, cases=jvp_cases)
def test_jvp_matches_torch_hidden(rec, cases):
    record_jvps(rec, cases)
