"""Task 4: backward(): seeding, accumulation at branch points, diamonds, depth, random graphs.

Expected gradients are the reference solution's, which is cross-checked against
torch.autograd (float64) on the same stored graphs by tests/minigrad/crosscheck_torch.py.
"""

import math

import numpy as np
from common import random_graph, record_graph_grads

from autograder.harness import graded
from minigrad import Tensor

TOL = {"atol": 1e-9, "rtol": 1e-7}  # contract: SPEC 5.1 Tensor wraps float64 (not free)

# ---- random expression graphs (common.random_graph: stored as data, built with minigrad) ------


def random_graphs(rng):
    return [random_graph(rng, n_ops) for n_ops in [1, 2, 3, 4, 5] + [6, 8, 10, 12] * 5]


@graded(points=8, cases=random_graphs)
def test_random_graphs_match_autograd(rec, cases):
    """Every leaf gradient of random expression graphs equals torch.autograd's."""
    record_graph_grads(rec, cases, TOL)


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
    """Factors near 1 whose product stays near 1. Plain IEEE arithmetic only (no np.exp, no
    SIMD reductions), so the stored inputs are bit-identical on every machine."""
    e = rng.normal(scale=0.01, size=5000)
    c = 1.0 + (e - math.fsum(e) / len(e))
    return {"x": rng.normal(size=3), "c": c, "d": rng.normal(scale=0.01, size=5000)}


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
