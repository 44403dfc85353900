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
    """A chain of 10 to 14 diamonds (y -> two branches of y, built in a random order -> their
    sum), among nodes the root does not depend on (extra leaves, and ops off the chain), so
    that where the chain's nodes sit among the build indices differs from one input set to
    another."""
    n_leaves = int(rng.integers(1, 5))
    ops: list[dict] = []
    y = int(rng.integers(n_leaves))  # the chain starts at one of the leaves

    def next_index():
        return n_leaves + len(ops)

    for _ in range(int(rng.integers(10, 15))):
        if rng.random() < 0.5:  # a node off the chain
            ops.append({"op": "neg", "args": [int(rng.integers(next_index()))]})
        branches = [{"op": "mul", "args": [y, y]}, {"op": str(rng.choice(["tanh", "neg"])),
                                                    "args": [y]}]
        first = next_index()
        ops += [branches[i] for i in rng.permutation(2)]
        left = first + int(rng.integers(2))
        ops.append({"op": "add", "args": [left, 2 * first + 1 - left]})
        y = next_index() - 1
    return [{"leaves": [rng.uniform(-1, 1, 2) for _ in range(n_leaves)], "ops": ops}]


@graded(points=2, cases=diamond_cases, timeout=3)
def test_order_of_diamond_chain(rec, cases):
    """10 to 14 diamonds among nodes off the chain: thousands of paths but at most 43 nodes
    on it; a node reached twice is listed once."""
    record_orders(rec, topological_order, cases)
