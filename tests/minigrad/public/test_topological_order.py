"""Task 3: topological_order(root). Any valid order is accepted: the test records where the
nodes it built appear (by their index in the build), and checks.valid_topological_order judges
that list against the stored graph."""

from common import random_dag, record_orders

from autograder.harness import graded
from minigrad import topological_order


def dag_cases(rng):
    return [random_dag(rng, int(rng.integers(1, 5)), n) for n in (1, 3, 6, 10, 20, 40, 40, 60)]


@graded(points=4, cases=dag_cases)
def test_order_of_random_graphs(rec, cases):
    """Every node the root depends on appears once, after all of its inputs."""
    record_orders(rec, topological_order, cases)


def diamond_cases(rng):
    ops = []
    for k in range(12):  # y -> (y * y, y.tanh()) -> their sum: one diamond per step
        y = 3 * k
        ops += [{"op": "mul", "args": [y, y]}, {"op": "tanh", "args": [y]},
                {"op": "add", "args": [y + 1, y + 2]}]
    return [{"leaves": [rng.uniform(-1, 1, 2)], "ops": ops}]


@graded(points=2, cases=diamond_cases, timeout=3)
def test_order_of_diamond_chain(rec, cases):
    """12 diamonds: 4,096 paths but 37 nodes; a node reached twice is listed once."""
    record_orders(rec, topological_order, cases)
