"""Task 3 (hidden): Jacobians, counted passes and cheaper_mode on other functions."""

from common import function_case, jacobian_fwd, jacobian_rev, record_cheaper_mode, record_counts, record_jacobians

from autograder.harness import graded


def jacobian_cases(rng):
    return [function_case(rng, name) for name in
            ("rational", "softmax_ops", "diamonds", "square_mat", "sum_axis1", "matrix_in")]


@graded(points=4, cases=jacobian_cases)
def test_jacobian_fwd_matches_torch_hidden(rec, cases):
    record_jacobians(rec, cases, jacobian_fwd)


@graded(points=4, cases=jacobian_cases)
def test_jacobian_rev_matches_torch_hidden(rec, cases):
    record_jacobians(rec, cases, jacobian_rev)


def count_cases(rng):
    return [function_case(rng, "scalar_loss", n=33), function_case(rng, "mlp"),
            function_case(rng, "matrix_in")]


@graded(points=3, cases=count_cases)
def test_counted_passes_hidden(rec, cases):
    record_counts(rec, cases)


def mode_cases(rng):
    return [[4096, 1], [1, 4096], [12, 12], [100, 99], [99, 100], [3, 1]]


@graded(points=1, cases=mode_cases)
def test_cheaper_mode_hidden(rec, cases):
    record_cheaper_mode(rec, cases)
