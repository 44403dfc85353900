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
    for k in range(int(rng.integers(10, 15))):  # y -> two branches of y -> their sum: a diamond
        y = 3 * k
        branches = [{"op": "mul", "args": [y, y]}, {"op": str(rng.choice(["tanh", "neg"])),
                                                    "args": [y]}]
        order = rng.permutation(2)
        ops += [branches[order[0]], branches[order[1]],
                {"op": "add", "args": [int(y + 1 + rng.integers(2)), 0]}]
        ops[-1]["args"][1] = 2 * y + 3 - ops[-1]["args"][0]  # the other branch
    return [{"leaves": [rng.uniform(-1, 1, 2)], "ops": ops}]


@graded(points=2, cases=diamond_cases, timeout=3)
def test_order_of_diamond_chain(rec, cases):
    """10 to 14 diamonds (branches in a random order): thousands of paths but at most 43
    nodes; a node reached twice is listed once."""
    record_orders(rec, topological_order, cases)
