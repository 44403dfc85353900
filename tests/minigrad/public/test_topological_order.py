"""Task 3: topological_order(root). Any valid order is accepted: the test records where the
nodes it built appear (by their index in the build), and checks.valid_topological_order judges
that list against the stored graph."""


from autograder.harness import graded
from minigrad import Tensor, topological_order

OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
       "tanh": lambda a: a.tanh()}


def build(graph):
    """Build the stored graph; returns every node, leaves first, root last."""
    nodes = [Tensor(x, requires_grad=True) for x in graph["leaves"]]
    for op in graph["ops"]:
        nodes.append(OPS[op["op"]](*[nodes[i] for i in op["args"]]))
    return nodes


def observed_order(nodes, root):
    """Positions of the built nodes in topological_order(root), as build indices (nodes the
    implementation adds itself, e.g. wrapped constants, are left out)."""
    index = {id(n): i for i, n in enumerate(nodes)}
    return [index[id(t)] for t in topological_order(root) if id(t) in index]


def random_dag(rng, n_leaves, n_ops):
    ops = []
    for k in range(n_ops):
        n = n_leaves + k
        name = ["add", "sub", "mul", "tanh"][rng.integers(4)]
        last = n - 1 if rng.random() < 0.5 else int(rng.integers(n))
        args = [last] + ([int(rng.integers(n))] if name != "tanh" else [])
        ops.append({"op": name, "args": args})
    return {"leaves": [rng.uniform(-1, 1, 2) for _ in range(n_leaves)], "ops": ops}


def dag_cases(rng):
    return [random_dag(rng, int(rng.integers(1, 5)), n) for n in (1, 3, 6, 10, 20, 40, 40, 60)]


@graded(points=4, cases=dag_cases)
def test_order_of_random_graphs(rec, cases):
    """Every node the root depends on appears once, after all of its inputs."""
    for i, graph in enumerate(cases):
        nodes = build(graph)
        rec.check(f"order[{i}]", observed_order(nodes, nodes[-1]), check="valid_topological_order")


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
    nodes = build(cases[0])
    rec.check("order[0]", observed_order(nodes, nodes[-1]), check="valid_topological_order")
