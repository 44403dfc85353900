"""Task 2 (hidden): vjp and repeated pullbacks on other functions."""

from common import function_case, record_vjps

from autograder.harness import graded


def vjp_cases(rng):
    return [function_case(rng, name) for name in
            ("inner", "matrix_in", "sum_axis0", "sum_axis1", "products", "contract",
             "column", "empty_branch")]  # (k, 1) values; a (0,) branch (np.dot of a (0, n) matrix)


@graded(points=4, cases=vjp_cases)
def test_vjp_matches_torch_hidden(rec, cases):
    record_vjps(rec, cases)


@graded(points=3, cases=vjp_cases)
def test_pullback_called_again_hidden(rec, cases):
    record_vjps(rec, cases, repeat=True)


def graph_cases(rng):
    return [function_case(rng, name) for name in ("diamonds", "fanout", "mlp")]


@graded(points=3, cases=graph_cases, timeout=5)
def test_fan_out_and_diamonds_hidden(rec, cases):
    record_vjps(rec, cases, repeat=True)
