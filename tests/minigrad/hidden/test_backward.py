"""Task 4 (hidden): backward() on larger random graphs, repeated passes, shared operands,
deeper diamonds and chains.

Expected gradients are the reference solution's, cross-checked against torch.autograd (float64)
on the same stored graphs by tests/minigrad/crosscheck_torch.py.
"""

import numpy as np
from common import build, random_graph, reaching_leaves, record_graph_grads

from autograder.harness import graded
from minigrad import Tensor

TOL = {"atol": 1e-9, "rtol": 1e-7}  # contract: SPEC 5.1 Tensor wraps float64 (not free)

# ---- random expression graphs (common.random_graph: stored as data, built with minigrad) ------


def random_graphs(rng):
    return [random_graph(rng, n_ops) for n_ops in [3, 5, 7, 9, 11, 13, 15, 18, 21, 25] * 4]


@graded(points=10, cases=random_graphs)
def test_random_graphs_match_autograd_hidden(rec, cases):
    """Every leaf gradient of random expression graphs equals torch.autograd's."""
    record_graph_grads(rec, cases, TOL)


def twice_cases(rng):
    return [random_graph(rng, n_ops) for n_ops in (4, 8, 12, 16)]


@graded(points=4, cases=twice_cases)
def test_backward_twice_accumulates(rec, cases):
    """Calling backward twice on the same graph accumulates: every leaf ends with twice its
    gradient (the graph is kept, as with retain_graph=True)."""
    for i, graph in enumerate(cases):
        nodes = build(graph)
        nodes[-1].backward(np.array(graph["upstream"]))
        first = {k: np.array(nodes[k].grad) for k in reaching_leaves(graph)}
        nodes[-1].backward(np.array(graph["upstream"]))
        for k, g in first.items():
            rec.close(f"[{i}].leaf{k}.first", g, **TOL)
            rec.close(f"[{i}].leaf{k}.second", nodes[k].grad, **TOL)


def shared_cases(rng):
    return [{"x": rng.normal(size=(3, 3)), "y": rng.normal(size=3), "g": rng.normal(size=(3, 3))}
            for _ in range(3)]


@graded(points=4, cases=shared_cases)
def test_same_tensor_on_both_sides(rec, cases):
    """x + x, x * x, x @ x, x - x, x / x.exp(): one leaf feeding both operands of an op."""
    for i, c in enumerate(cases):
        exprs = {"x+x": lambda x: x + x, "x*x": lambda x: x * x, "x@x": lambda x: x @ x,
                 "x-x": lambda x: x - x, "x/exp(x)": lambda x: x / x.exp(),
                 "x@x.T": lambda x: x @ x.T, "(x+x)*(x+x)": lambda x: (x + x) * (x + x)}
        for name, f in exprs.items():
            x = Tensor(c["x"], requires_grad=True)
            f(x).backward(np.array(c["g"]))
            rec.close(f"[{i}].{name}", x.grad, **TOL)
        x = Tensor(c["x"], requires_grad=True)
        y = Tensor(c["y"], requires_grad=True)
        z = x + y  # both leaves fed by the same upstream array (y broadcast)
        z.backward(np.array(c["g"]))
        z.backward(np.array(c["g"]))
        rec.close(f"[{i}].x+y twice.x", x.grad, **TOL)
        rec.close(f"[{i}].x+y twice.y", y.grad, **TOL)


def seed_cases(rng):
    return {"x": rng.normal(size=(2,)), "v": rng.normal(size=(1, 1, 1)), "s": rng.normal(size=())}


@graded(points=2, cases=seed_cases)
def test_backward_seed_hidden(rec, cases):
    """ValueError for a 2-element output without grad; shapes (1, 1, 1) and () seed with 1."""
    x = Tensor(cases["x"], requires_grad=True)
    rec.raises("two_elements_without_grad", (x * x).sum(axis=0, keepdims=True).T.backward)
    rec.raises("reshaped_without_grad", (x.exp() * 3.0).reshape(2, 1).backward)
    v = Tensor(cases["v"], requires_grad=True)
    (v.tanh() * 2.0).backward()
    rec.close("(1,1,1).grad", v.grad, **TOL)
    s = Tensor(np.asarray(cases["s"]), requires_grad=True)
    (s * s * s).backward()
    rec.close("().grad", s.grad, **TOL)


def diamond_cases(rng):
    return {"x": rng.uniform(-1.0, 1.0, size=(2, 2)), "a": rng.uniform(0.58, 0.68, 80),
            "b": rng.uniform(0.2, 0.3, 80)}


@graded(points=4, cases=diamond_cases, timeout=3)
def test_diamond_chain_hidden(rec, cases):
    """80 three-way diamonds: 3^80 paths, 400 nodes."""
    x = Tensor(cases["x"], requires_grad=True)
    y = x
    for a, b in zip(cases["a"], cases["b"]):
        y = y * float(a) + y.tanh() * float(b) + (y / (y * y + 4.0)) * 0.5
    y.sum().backward()
    rec.close("x.grad", x.grad, **TOL)


def deep_cases(rng):
    return {"x": rng.uniform(-1, 1, size=(2, 3)), "w": rng.normal(scale=0.02, size=3334)}


@graded(points=3, cases=deep_cases, timeout=5)
def test_deep_residual_chain(rec, cases):
    """y <- y + tanh(w_k * y): 3,334 small diamonds, 10,002 ops deep."""
    x = Tensor(cases["x"], requires_grad=True)
    y = x
    for w in cases["w"]:
        y = y + (y * float(w)).tanh()
    rec.raises("backward raises", y.mean().backward)  # None, or e.g. RecursionError
    if x.grad is not None:  # None is a failure too: the observation goes missing
        rec.close("x.grad", x.grad, **TOL)
