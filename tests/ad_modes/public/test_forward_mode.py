"""Task 1: dual numbers and forward mode. Dual arithmetic, every primitive on Duals, and
jvp(f, x, v) on functions with m != n and non-symmetric Jacobians.

Expected values are the reference solution's, cross-checked against torch.func.jvp and
torch.autograd.forward_ad by tests/ad_modes/crosscheck_torch.py.
"""

from common import (
    ARITHMETIC,
    dual_cases,
    function_case,
    record_dual_arithmetic,
    record_dual_ops,
    record_jvps,
)

from autograder.harness import graded


@graded(points=3, cases=dual_cases)
def test_dual_arithmetic(rec, cases):
    """+ - * / between Duals and with a float on either side, unary -, ** constant."""
    record_dual_arithmetic(rec, cases, list(ARITHMETIC))


@graded(points=3, cases=dual_cases)
def test_ops_on_duals(rec, cases):
    """sin cos exp log tanh, sum over every axis, dot in every 1-D/2-D combination."""
    record_dual_ops(rec, cases)


def jvp_cases(rng):
    return [function_case(rng, name) for name in
            ("mlp", "products", "rational", "expand", "contract", "matrix_in", "scalar_loss")]


@graded(points=4, cases=jvp_cases)
def test_jvp_matches_torch(rec, cases):
    """jvp(f, x, v) = (f(x), J v), as torch.func.jvp, for R^n -> R^m with m != n."""
    record_jvps(rec, cases)
