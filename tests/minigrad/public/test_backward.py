"""Task 4: backward(): seeding, accumulation at branch points, diamonds, depth, random graphs.

Expected gradients are the reference solution's, which is cross-checked against
torch.autograd (float64) on the same stored graphs by tests/minigrad/crosscheck_torch.py.
"""

import numpy as np

from autograder.harness import graded
from minigrad import Tensor

TOL = {"atol": 1e-9, "rtol": 1e-7}

# ---- random expression graphs, stored as data -------------------------------------------------
# A graph is {"leaves": [arrays], "ops": [{"op", "args", ...}], "upstream": array}. Node i is
# leaves[i] for i < len(leaves), then the output of ops[i - len(leaves)]; the last node is the root.


def _elementwise(name):
    numpy_fn = {"exp": np.exp, "log": np.log, "tanh": np.tanh,
                "relu": lambda x: np.maximum(x, 0.0)}[name]
    return lambda a, op: numpy_fn(a) if isinstance(a, (np.ndarray, np.generic)) else getattr(a, name)()


def _axis(op):
    axis = op.get("axis")
    return tuple(axis) if isinstance(axis, list) else axis


OPS = {  # name -> (arity, apply(*args, op)) ; works on minigrad Tensors and on numpy arrays
    "add": (2, lambda a, b, op: a + b),
    "sub": (2, lambda a, b, op: a - b),
    "mul": (2, lambda a, b, op: a * b),
    "div": (2, lambda a, b, op: a / b),
    "matmul": (2, lambda a, b, op: a @ b),
    "add_c": (1, lambda a, op: a + op["c"]),
    "c_add": (1, lambda a, op: op["c"] + a),
    "c_sub": (1, lambda a, op: op["c"] - a),
    "sub_c": (1, lambda a, op: a - op["c"]),
    "c_mul": (1, lambda a, op: op["c"] * a),
    "div_c": (1, lambda a, op: a / op["c"]),
    "c_div": (1, lambda a, op: op["c"] / a),
    "neg": (1, lambda a, op: -a),
    "pow": (1, lambda a, op: a ** op["c"]),
    "exp": (1, _elementwise("exp")),
    "log": (1, _elementwise("log")),
    "relu": (1, _elementwise("relu")),
    "tanh": (1, _elementwise("tanh")),
    "sum": (1, lambda a, op: a.sum(axis=_axis(op), keepdims=op["keepdims"])),
    "mean": (1, lambda a, op: a.mean(axis=_axis(op), keepdims=op["keepdims"])),
    "reshape": (1, lambda a, op: a.reshape(*op["shape"])),
    "T": (1, lambda a, op: a.T),
}
LEAF_SHAPES = [(2, 3), (3,), (2, 1), (1, 3), (), (3, 3), (3, 2), (1,), (3, 3), (2, 3)]


def _valid(name, args, op, out):
    """Keep the graph inside each op's domain and away from kinks and overflow."""
    a = args[0]
    if not np.all(np.isfinite(out)) or np.abs(out).max(initial=0.0) > 50:
        return False
    if name == "div" or name == "c_div" or (name == "pow" and op["c"] < 0):
        d = args[1] if name == "div" else a
        return np.abs(d).min(initial=1.0) >= 0.3
    if name == "log" or (name == "pow" and op["c"] != int(op["c"])):
        return a.min(initial=1.0) >= 0.2
    if name == "relu":
        return np.abs(a).min(initial=1.0) >= 1e-3
    return True


def _broadcastable(a, b):
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def random_graph(rng, n_ops):
    """A random expression graph of n_ops ops over 1-4 leaves, with branch points and
    broadcasting, kept inside every op's domain (computed with NumPy as it is drawn)."""
    leaves = []
    for _ in range(rng.integers(1, 5)):
        shape = LEAF_SHAPES[rng.integers(len(LEAF_SHAPES))]
        leaves.append(np.asarray(rng.uniform(0.3, 1.5, shape) * rng.choice([-1.0, 1.0], shape)))
    values, ops, names, used = [np.asarray(x) for x in leaves], [], sorted(OPS), set()
    while len(ops) < n_ops:
        binary = rng.random() < 0.4
        kind = [n for n in names if (OPS[n][0] == 2) == binary]
        name = kind[rng.integers(len(kind))]
        arity, apply = OPS[name]
        first = len(values) - 1 if rng.random() < 0.6 else int(rng.integers(len(values)))
        idx = [first]
        if arity == 2:  # a compatible second operand, preferably one nothing uses yet
            a = values[first]
            fits = [i for i, v in enumerate(values)
                    if (v.ndim == 2 and a.ndim == 2 and a.shape[1] == v.shape[0]) == (name == "matmul")
                    and (name == "matmul" or _broadcastable(a.shape, v.shape))]
            unused = [i for i in fits if i not in used]
            pool = unused if unused and rng.random() < 0.7 else fits
            if not pool:
                continue
            idx.append(int(pool[rng.integers(len(pool))]))
        args = [values[i] for i in idx]
        a = args[0]
        op = {"op": name, "args": idx}
        if name in ("add_c", "c_add", "c_sub", "sub_c", "c_mul", "div_c", "c_div"):
            op["c"] = float(np.round(rng.uniform(0.5, 2.0) * rng.choice([-1, 1]), 3))
        elif name == "pow":
            op["c"] = [2, 3, -1, 0.5, 1.5][rng.integers(5)]
        elif name in ("sum", "mean"):
            axes = [None] + list(range(-a.ndim, a.ndim)) + ([[0, 1]] if a.ndim == 2 else [])
            op["axis"] = axes[rng.integers(len(axes))]
            op["keepdims"] = bool(rng.integers(2))
        elif name == "reshape":
            n = a.size
            shapes = [[n], [1, n], [n, 1]] + ([[3, 2], [2, 3]] if n == 6 else [])
            op["shape"] = shapes[rng.integers(len(shapes))]
        if name == "T" and a.ndim != 2:  # the tests transpose matrices only
            continue
        with np.errstate(all="ignore"):
            out = np.asarray(apply(*args, op), dtype=np.float64)
        if out.ndim <= 2 and _valid(name, args, op, out):
            values.append(out)
            ops.append(op)
            used.update(idx)
    graph = {"leaves": leaves, "ops": ops}
    for leaf in sorted(set(range(len(leaves))) - set(reaching_leaves(graph))):
        root = len(values) - 1
        if not _broadcastable(values[root].shape, values[leaf].shape):  # reduce it first
            ops.append({"op": "sum", "args": [leaf], "axis": None, "keepdims": False})
            values.append(np.asarray(values[leaf].sum()))
            leaf = len(values) - 1
        ops.append({"op": "add", "args": [root, leaf]})  # the root uses every leaf
        values.append(values[root] + values[leaf])
    graph["upstream"] = rng.normal(size=values[-1].shape)
    return graph


def build(graph):
    """Build the stored graph with minigrad; returns every node, leaves first, root last."""
    nodes = [Tensor(x, requires_grad=True) for x in graph["leaves"]]
    for op in graph["ops"]:
        nodes.append(OPS[op["op"]][1](*[nodes[i] for i in op["args"]], op))
    return nodes


def reaching_leaves(graph):
    """Indices of the leaves the root depends on (the others get no gradient)."""
    n = len(graph["leaves"])
    needed, reached = {n + len(graph["ops"]) - 1}, set()
    for k in range(n + len(graph["ops"]) - 1, -1, -1):
        if k in needed:
            if k < n:
                reached.add(k)
            else:
                needed.update(graph["ops"][k - n]["args"])
    return sorted(reached)


def random_graphs(rng):
    return [random_graph(rng, n_ops) for n_ops in [1, 2, 3, 4, 5] + [6, 8, 10, 12] * 5]


@graded(points=8, cases=random_graphs)
def test_random_graphs_match_autograd(rec, cases):
    """Every leaf gradient of random expression graphs equals torch.autograd's."""
    for i, graph in enumerate(cases):
        nodes = build(graph)
        root = nodes[-1]
        rec.close(f"graph[{i}].value", root.data, **TOL)
        root.backward(np.array(graph["upstream"]))
        for leaf in reaching_leaves(graph):
            rec.close(f"graph[{i}].grad[{leaf}]", nodes[leaf].grad, **TOL)


# ---- seeding the backward pass --------------------------------------------------------------


def seed_cases(rng):
    return {"x3": rng.normal(size=3), "x22": rng.normal(size=(2, 2)),
            "x1": rng.normal(size=1), "x11": rng.normal(size=(1, 1)), "w": rng.normal(size=3)}


@graded(points=3, cases=seed_cases)
def test_backward_seed(rec, cases):
    """A one-element output seeds with 1; a larger output without grad raises ValueError."""
    x = Tensor(cases["x3"], requires_grad=True)
    rec.raises("vector_without_grad", (x * 2.0).backward)
    m = Tensor(cases["x22"], requires_grad=True)
    rec.raises("matrix_without_grad", m.exp().backward)
    for name in ("x1", "x11"):  # shapes (1,) and (1, 1) count as scalars
        t = Tensor(cases[name], requires_grad=True)
        (t * t).backward()
        rec.close(f"{name}.grad", t.grad, **TOL)
    w = Tensor(cases["w"], requires_grad=True)
    (w * w).backward(np.array([1.0, -2.0, 0.5]))
    rec.close("explicit_seed.grad", w.grad, **TOL)


# ---- branch points and accumulation -----------------------------------------------------------


def branch_cases(rng):
    return [{"x": rng.normal(size=(2, 3)), "y": rng.normal(size=(2, 3)),
             "g": rng.normal(size=(2, 3))} for _ in range(3)]


@graded(points=4, cases=branch_cases)
def test_branch_points_sum(rec, cases):
    """A node used several times gets the sum of the gradients of all its uses."""
    for i, c in enumerate(cases):
        x = Tensor(c["x"], requires_grad=True)
        y = Tensor(c["y"], requires_grad=True)
        z = x * x + x * y - x.tanh()  # x feeds four uses
        (z * z).backward(np.array(c["g"]))
        rec.close(f"[{i}].x.grad", x.grad, **TOL)
        rec.close(f"[{i}].y.grad", y.grad, **TOL)


@graded(points=4, cases=branch_cases)
def test_two_leaves_one_upstream_twice(rec, cases):
    """x + y: both leaves receive the same upstream array; backward twice gives 2g in each."""
    for i, c in enumerate(cases):
        x = Tensor(c["x"], requires_grad=True)
        y = Tensor(c["y"], requires_grad=True)
        z = x + y
        z.backward(np.array(c["g"]))
        rec.close(f"[{i}].first.x.grad", np.array(x.grad), **TOL)  # copied before the 2nd pass
        rec.close(f"[{i}].first.y.grad", np.array(y.grad), **TOL)
        z.backward(np.array(c["g"]))
        rec.close(f"[{i}].second.x.grad", x.grad, **TOL)
        rec.close(f"[{i}].second.y.grad", y.grad, **TOL)


# ---- graph shape: diamonds and depth ----------------------------------------------------------


def diamond_cases(rng):
    return {"x": rng.normal(size=2), "a": rng.uniform(0.4, 0.6, 60), "b": rng.uniform(0.4, 0.6, 60)}


@graded(points=4, cases=diamond_cases, timeout=3)
def test_diamond_chain(rec, cases):
    """60 diamonds in a chain: 2^60 paths, 180 nodes. Each node's backward must run once."""
    x = Tensor(cases["x"], requires_grad=True)
    y = x
    for a, b in zip(cases["a"], cases["b"]):
        y = y * float(a) + (y * float(b)).tanh()  # y feeds two branches that join again
    y.sum().backward()
    rec.close("x.grad", x.grad, **TOL)


def deep_cases(rng):
    e = rng.normal(scale=0.01, size=5000)
    return {"x": rng.normal(size=3), "c": np.exp(e - e.mean()), "d": rng.normal(scale=0.01, size=5000)}


@graded(points=4, cases=deep_cases, timeout=5)
def test_deep_chain(rec, cases):
    """A chain of 10,000 ops: backward must not recurse once per node (RecursionError)."""
    x = Tensor(cases["x"], requires_grad=True)
    y = x
    for c, d in zip(cases["c"], cases["d"]):
        y = y * float(c) + float(d)
    rec.raises("backward raises", (y * y).sum().backward)  # None, or e.g. RecursionError
    if x.grad is not None:  # None is a failure too: the observation goes missing
        rec.close("x.grad", x.grad, **TOL)
