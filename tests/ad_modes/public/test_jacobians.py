"""Task 3: whole Jacobians in both modes, counted passes, and which mode is cheaper.

Jacobians are the reference solution's, cross-checked against torch.func.jacfwd / jacrev and
torch.autograd.functional.jacobian by tests/ad_modes/crosscheck_torch.py. Passes are counted,
never timed: calls of f, and primitive evaluations through a counting wrapper of ops.
"""

from common import function_case, jacobian_fwd, jacobian_rev, record_cheaper_mode, record_counts, record_jacobians

from autograder.harness import graded


def jacobian_cases(rng):
    return [function_case(rng, name) for name in
            ("mlp", "products", "expand", "contract", "fanout", "vecmat", "inner")]


@graded(points=4, cases=jacobian_cases)
def test_jacobian_fwd_matches_torch(rec, cases):
    """jacobian_fwd(f, x) = torch.func.jacfwd(f)(x): J[i, j] = ∂f_i/∂x_j, shape (m, n)."""
    record_jacobians(rec, cases, jacobian_fwd)


@graded(points=4, cases=jacobian_cases)
def test_jacobian_rev_matches_torch(rec, cases):
    """jacobian_rev(f, x) = torch.func.jacrev(f)(x)."""
    record_jacobians(rec, cases, jacobian_rev)


def shape_cases(rng):
    return [function_case(rng, name) for name in
            ("matrix_in", "square_mat", "sum_axis0", "scalar_loss")]


@graded(points=3, cases=shape_cases)
def test_jacobian_shapes(rec, cases):
    """Shape f(x).shape + x.shape, as torch: matrix inputs, a reduced axis, a scalar output."""
    record_jacobians(rec, cases, jacobian_fwd, "jacobian_fwd")
    record_jacobians(rec, cases, jacobian_rev, "jacobian_rev")


def count_cases(rng):
    return [function_case(rng, "scalar_loss", n=20), function_case(rng, "expand"),
            function_case(rng, "contract")]


@graded(points=3, cases=count_cases)
def test_counted_passes(rec, cases):
    """jacobian_fwd calls f n times (n × the primitives of f), jacobian_rev once; for a scalar
    loss of n = 20 inputs reverse mode evaluates f's primitives once, forward mode 20 times."""
    record_counts(rec, cases)


def mode_cases(rng):
    """Fixed boundaries, then random shapes (ties among them)."""
    tie = int(rng.integers(2, 10**6))
    drawn = [[int(n), int(m)] for n, m in rng.integers(1, 10**6, size=(8, 2))]
    return [[1, 1000], [1000, 1], [7, 7], [3, 5], [5, 3], [1, 1], [10**9, 1], [2, 2],
            [tie, tie], *drawn]


@graded(points=2, cases=mode_cases)
def test_cheaper_mode(rec, cases):
    """n JVPs or m VJPs: the fewer passes wins, a tie goes to forward."""
    record_cheaper_mode(rec, cases)
