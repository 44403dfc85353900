"""Task 3 (hidden): topological_order on bigger random graphs, a 10,000-op chain, and a leaf."""

from autograder.harness import graded
from minigrad import Tensor, topological_order

OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
       "tanh": lambda a: a.tanh()}


def build(graph):
    nodes = [Tensor(x, requires_grad=True) for x in graph["leaves"]]
    for op in graph["ops"]:
        nodes.append(OPS[op["op"]](*[nodes[i] for i in op["args"]]))
    return nodes


def observed_order(nodes, root):
    index = {id(n): i for i, n in enumerate(nodes)}
    return [index[id(t)] for t in topological_order(root) if id(t) in index]


def random_dag(rng, n_leaves, n_ops):
    ops = []
    for k in range(n_ops):
        n = n_leaves + k
        name = ["add", "sub", "mul", "tanh"][rng.integers(4)]
        first = int(rng.integers(max(0, n - 3), n))  # mostly recent nodes: long paths
        args = [first] + ([int(rng.integers(n))] if name != "tanh" else [])
        ops.append({"op": name, "args": args})
    return {"leaves": [rng.uniform(-1, 1, 2) for _ in range(n_leaves)], "ops": ops}


def dag_cases(rng):
    return [random_dag(rng, int(rng.integers(1, 8)), n) for n in (2, 5, 15, 30, 80, 150, 300)]


@graded(points=3, cases=dag_cases)
def test_order_of_random_graphs_hidden(rec, cases):
    for i, graph in enumerate(cases):
        nodes = build(graph)
        rec.check(f"order[{i}]", observed_order(nodes, nodes[-1]), check="valid_topological_order")


def chain_cases(rng):
    return [{"leaves": [rng.uniform(-1, 1, 2)], "chain": 10000}]


@graded(points=2, cases=chain_cases, timeout=5)
def test_order_of_deep_chain(rec, cases):
    """10,000 ops in a chain: the sort must not recurse once per node."""
    nodes = [Tensor(cases[0]["leaves"][0], requires_grad=True)]
    for _ in range(cases[0]["chain"]):
        nodes.append(nodes[-1] * 1.0)
    rec.check("order[0]", observed_order(nodes, nodes[-1]), check="valid_topological_order")


def leaf_cases(rng):
    return [{"leaves": [rng.uniform(-1, 1, 3)], "ops": []}]


@graded(points=1, cases=leaf_cases)
def test_order_of_a_leaf(rec, cases):
    """The order of a lone leaf is just that leaf."""
    nodes = build(cases[0])
    rec.check("order[0]", observed_order(nodes, nodes[-1]), check="valid_topological_order")
