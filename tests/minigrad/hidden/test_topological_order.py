"""Task 3 (hidden): topological_order on bigger random graphs, a 10,000-op chain, and a leaf."""

from common import build_indices, random_dag, record_orders

from autograder.harness import graded
from minigrad import Tensor, topological_order


def dag_cases(rng):
    return [random_dag(rng, int(rng.integers(1, 8)), n, long_paths=True)
            for n in (2, 5, 15, 30, 80, 150, 300)]


@graded(points=3, cases=dag_cases)
def test_order_of_random_graphs_hidden(rec, cases):
    record_orders(rec, topological_order, cases)


def chain_cases(rng):
    return [{"leaves": [rng.uniform(-1, 1, 2)], "chain": int(rng.integers(10_000, 12_000))}]


@graded(points=2, cases=chain_cases, timeout=5)
def test_order_of_deep_chain(rec, cases):
    """10,000 to 12,000 ops in a chain: the sort must not recurse once per node."""
    nodes = [Tensor(cases[0]["leaves"][0], requires_grad=True)]
    for _ in range(cases[0]["chain"]):
        nodes.append(nodes[-1] * 1.0)
    order = topological_order(nodes[-1])
    rec.check("order[0]", build_indices(order, nodes), check="valid_topological_order")


def leaf_cases(rng):
    return [{"leaves": [rng.uniform(-1, 1, 3)], "ops": []}]


@graded(points=1, cases=leaf_cases)
def test_order_of_a_leaf(rec, cases):
    """The order of a lone leaf is just that leaf. (So `return [root]`, which does no work,
    passes this one point: the one exception of tests/selftest/no_work/minigrad.)"""
    record_orders(rec, topological_order, cases)
