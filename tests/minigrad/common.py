"""Shared by minigrad's public and hidden tests: random expression graphs stored as data and
built with minigrad (Tasks 3 and 4), and the recording loops that both test sets run on their
own inputs (Tasks 1, 2 and 4).

Tensors are made through this module's `Tensor`, which tests/minigrad/crosscheck_torch.py swaps
for a torch-backed stand-in; the other functions under test (unbroadcast, topological_order)
stay in the test files, which pass them or their results in.
"""

import numpy as np

from minigrad import Tensor

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


def record_graph_grads(rec, graphs, tol):
    """Build each graph, record the root's value, run backward from the stored upstream
    gradient, and record the gradient of every leaf the root depends on."""
    for i, graph in enumerate(graphs):
        nodes = build(graph)
        root = nodes[-1]
        rec.close(f"graph[{i}].value", root.data, **tol)
        root.backward(np.array(graph["upstream"]))
        for leaf in reaching_leaves(graph):
            rec.close(f"graph[{i}].grad[{leaf}]", nodes[leaf].grad, **tol)


# ---- topological order ------------------------------------------------------------------------


def random_dag(rng, n_leaves, n_ops, long_paths=False):
    """A random DAG of add/sub/mul/tanh ops over n_leaves leaves (values do not matter here).
    Each op's first input is the latest node half the time and any node otherwise, or, with
    long_paths, one of the three latest nodes (deep graphs); a binary op's second is any node."""
    ops = []
    for k in range(n_ops):
        n = n_leaves + k
        name = ["add", "sub", "mul", "tanh"][rng.integers(4)]
        if long_paths:
            first = int(rng.integers(max(0, n - 3), n))
        else:
            first = n - 1 if rng.random() < 0.5 else int(rng.integers(n))
        args = [first] + ([int(rng.integers(n))] if name != "tanh" else [])
        ops.append({"op": name, "args": args})
    return {"leaves": [rng.uniform(-1, 1, 2) for _ in range(n_leaves)], "ops": ops}


def build_indices(order, nodes):
    """The build indices of the nodes in `order` (a topological_order result), in its order;
    tensors the implementation adds itself, e.g. wrapped constants, are left out."""
    index = {id(n): i for i, n in enumerate(nodes)}
    return [index[id(t)] for t in order if id(t) in index]


def record_orders(rec, topological_order, graphs):
    """Build each graph and record the build indices of topological_order(root) as "order[i]",
    for checks.valid_topological_order to judge against graphs[i]."""
    for i, graph in enumerate(graphs):
        nodes = build(graph)
        order = topological_order(nodes[-1])
        rec.check(f"order[{i}]", build_indices(order, nodes), check="valid_topological_order")


# ---- recording loops --------------------------------------------------------------------------


def record_unary_grads(rec, exprs, cases, upstream, tol):
    """exprs maps a name to (the key of its input in cases, f): records the gradient of f(x)
    at x = cases[key] for the given upstream gradient."""
    for name, (key, f) in exprs.items():
        x = Tensor(cases[key], requires_grad=True)
        f(x).backward(np.array(upstream))
        rec.close(f"{name}.grad", x.grad, **tol)


def record_unbroadcast(rec, unbroadcast, cases, tol):
    """The given unbroadcast(grad, shape) on every case: whether it raises, and its result."""
    for i, c in enumerate(cases):
        out = rec.raises(f"unbroadcast[{i}] raises", unbroadcast, np.array(c["grad"]),
                         tuple(c["shape"]))
        if out is not None:  # when it raised, the missing value fails this observation
            rec.close(f"unbroadcast[{i}] {c['grad'].shape}->{tuple(c['shape'])}", out, **tol)


def record_binary_grads(rec, cases, tol):
    """a + b, a - b, a * b, a / b on every case {"a", "b", "g"}: both gradients for upstream g."""
    for i, c in enumerate(cases):
        for op in ("add", "sub", "mul", "div"):
            a = Tensor(np.asarray(c["a"]), requires_grad=True)
            b = Tensor(np.asarray(c["b"]), requires_grad=True)
            out = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b}[op]
            out.backward(np.array(c["g"]))
            rec.close(f"[{i}].{op}.a.grad", a.grad, **tol)
            rec.close(f"[{i}].{op}.b.grad", b.grad, **tol)


def record_reduction_grads(rec, x0, upstream, axes, tol):
    """sum and mean of x0 over each of `axes`, with and without keepdims: the input gradient for
    a non-uniform upstream gradient (the first entries of `upstream`, in the output's shape)."""
    for op in ("sum", "mean"):
        for axis in axes:
            for keepdims in (False, True):
                x = Tensor(x0, requires_grad=True)
                out = getattr(x, op)(axis=axis, keepdims=keepdims)
                shape = np.sum(x0, axis=axis, keepdims=keepdims).shape
                out.backward(np.array(upstream[: int(np.prod(shape))]).reshape(shape))
                rec.close(f"{op}(axis={axis}, keepdims={keepdims}).grad", x.grad, **tol)
