"""Task 2: the tape and reverse mode. vjp(f, x) = (f(x), pullback) with pullback(u) = uᵀ J,
called more than once; fan-out (a node with many uses) and chains of diamonds.

Expected values are the reference solution's, cross-checked against torch.func.vjp by
tests/ad_modes/crosscheck_torch.py.
"""

from common import function_case, record_vjps

from autograder.harness import graded


def vjp_cases(rng):
    return [function_case(rng, name) for name in
            ("mlp", "products", "rational", "expand", "contract", "vecmat", "square_mat",
             "scalar_loss")]


@graded(points=4, cases=vjp_cases)
def test_vjp_matches_torch(rec, cases):
    """f(x) and pullback(u) = uᵀ J, as torch.func.vjp."""
    record_vjps(rec, cases)


@graded(points=3, cases=vjp_cases)
def test_pullback_called_again(rec, cases):
    """pullback(u), pullback(u2), pullback(u) on one tape: the third equals the first."""
    record_vjps(rec, cases, repeat=True)


def graph_cases(rng):
    return [function_case(rng, name) for name in ("fanout", "diamonds", "softmax_ops")]


@graded(points=3, cases=graph_cases, timeout=5)
def test_fan_out_and_diamonds(rec, cases):
    """A node used eight times; 40 diamonds in a chain (2^40 paths, ~200 nodes): adjoints of
    all uses add up, and each node is visited once."""
    record_vjps(rec, cases, repeat=True)
