"""Task 1: the ops. Forward values, and each op's local derivative with a non-uniform upstream
gradient (a uniform one hides transposes and axis mix-ups)."""

import numpy as np
from common import record_reduction_grads, record_unary_grads

from autograder.harness import graded
from minigrad import Tensor

TOL = {"atol": 1e-10, "rtol": 1e-8}  # contract: SPEC 5.1 Tensor wraps float64 (not free)


def op_cases(rng):
    return {"a": rng.normal(size=(2, 3)), "b": rng.normal(size=(2, 3)),
            "pos": rng.uniform(0.5, 2.0, size=(2, 3)), "sq": rng.normal(size=(3, 3)),
            "sq2": rng.normal(size=(3, 3)), "n": rng.normal(size=(3, 4)),
            "g23": rng.normal(size=(2, 3)), "g24": rng.normal(size=(2, 4)),
            "g33": rng.normal(size=(3, 3)), "u9": rng.normal(size=9), "c": float(rng.uniform(0.5, 2.0))}


@graded(points=3, cases=op_cases)
def test_forward_values(rec, cases):
    """Every op computes the NumPy value, in float64."""
    a, b, p, c = Tensor(cases["a"]), Tensor(cases["b"]), Tensor(cases["pos"]), cases["c"]
    # contract: SPEC 5.1 Tensor wraps a float64 array: small ints convert exactly (bitwise)
    rec.close("int_input_is_float64", Tensor(np.array([1, 2, 3])).data)
    rec.exact("shape", list(a.shape))
    results = {
        "a+b": a + b, "a-b": a - b, "a*b": a * b, "a/p": a / p, "c+a": c + a, "a+c": a + c,
        "c-a": c - a, "a-c": a - c, "c*a": c * a, "a*c": a * c, "c/p": c / p, "a/c": a / c,
        "-a": -a, "a**2": a**2, "p**-1.5": p**-1.5, "exp": a.exp(), "log": p.log(),
        "relu": a.relu(), "tanh": a.tanh(), "sum": a.sum(), "sum0": a.sum(axis=0),
        "sum1k": a.sum(axis=1, keepdims=True), "mean": a.mean(), "mean1": a.mean(axis=1),
        "reshape": a.reshape(3, 2), "T": a.T, "matmul": a @ Tensor(cases["n"][:3, :]),
    }
    for name, t in results.items():
        rec.close(name, t.data, **TOL)


@graded(points=3, cases=op_cases)
def test_arithmetic_grads(rec, cases):
    """+ - * / between tensors, and with a Python scalar on either side."""
    g, c = cases["g23"], cases["c"]
    exprs = {  # name -> (the leaves it uses, expression)
        "a+b": ("ab", lambda a, b: a + b), "a-b": ("ab", lambda a, b: a - b),
        "a*b": ("ab", lambda a, b: a * b), "a/b": ("ab", lambda a, b: a / b),
        "c-a": ("a", lambda a, b: c - a), "c/b": ("b", lambda a, b: c / b),
        "a/c": ("a", lambda a, b: a / c), "c*a+b-c": ("ab", lambda a, b: c * a + b - c),
    }
    for name, (used, f) in exprs.items():
        leaves = {"a": Tensor(cases["a"], requires_grad=True),
                  "b": Tensor(cases["pos"], requires_grad=True)}
        f(leaves["a"], leaves["b"]).backward(np.array(g))
        for leaf in used:
            rec.close(f"{name}.{leaf}.grad", leaves[leaf].grad, **TOL)


@graded(points=3, cases=op_cases)
def test_unary_grads(rec, cases):
    """Local derivatives of -x, x**k, exp, log, relu, tanh."""
    g = cases["g23"]
    exprs = {
        "neg": ("a", lambda x: -x), "square": ("a", lambda x: x**2), "cube": ("a", lambda x: x**3),
        "inverse": ("pos", lambda x: x**-1), "sqrt": ("pos", lambda x: x**0.5),
        "exp": ("a", lambda x: x.exp()), "log": ("pos", lambda x: x.log()),
        "relu": ("a", lambda x: x.relu()), "tanh": ("a", lambda x: x.tanh()),
    }
    record_unary_grads(rec, exprs, cases, g, TOL)


@graded(points=3, cases=op_cases)
def test_matmul_grads(rec, cases):
    """dA = dC @ B.T and dB = A.T @ dC, on square and non-square operands."""
    for name, (ka, kb, kg) in {"square": ("sq", "sq2", "g33"), "wide": ("a", "n", "g24")}.items():
        a = Tensor(cases[ka], requires_grad=True)
        b = Tensor(cases[kb], requires_grad=True)
        (a @ b).backward(np.array(cases[kg]))
        rec.close(f"{name}.a.grad", a.grad, **TOL)
        rec.close(f"{name}.b.grad", b.grad, **TOL)


@graded(points=3, cases=op_cases)
def test_reduction_grads(rec, cases):
    """sum and mean over every axis choice, with and without keepdims (square input, so a
    gradient put back along the wrong axis still has the right shape)."""
    record_reduction_grads(rec, cases["sq"], cases["u9"], (None, 0, 1, -1, (0, 1)), TOL)


@graded(points=2, cases=op_cases)
def test_shape_grads(rec, cases):
    """reshape and .T move the gradient back to the input's layout."""
    g = np.array(cases["g23"])
    for name, f, gout in (("reshape(3, 2)", lambda x: x.reshape(3, 2), g.reshape(3, 2)),
                          ("reshape((6,))", lambda x: x.reshape((6,)), g.reshape(6)),
                          ("T", lambda x: x.T, g.T.copy())):
        x = Tensor(cases["a"], requires_grad=True)
        (f(x) * 1.0).backward(gout)
        rec.close(f"{name}.grad", x.grad, **TOL)


def pow_at_zero_cases(rng):
    """x ** p for p = 1, 2, 3, where x holds exact zeros among normal draws: the derivative
    p * x ** (p - 1) is fixed there (1 for p = 1, 0 for p = 2 and 3). Powers p < 1 have no
    derivative at 0 (SPEC 5.1 leaves it free), so none is asked for."""
    cases = []
    for p in (1, 2, 3):
        x = rng.normal(size=(2, 3))
        x.flat[rng.choice(6, size=int(rng.integers(1, 4)), replace=False)] = 0.0
        cases.append({"p": p, "x": x, "g": rng.normal(size=(2, 3))})
    return cases


@graded(points=1, cases=pow_at_zero_cases)
def test_pow_grad_at_zero(rec, cases):
    """The gradient of x ** p where x is exactly 0 (beside other entries): finite, p * 0 ** (p - 1)."""
    for i, c in enumerate(cases):
        x = Tensor(c["x"], requires_grad=True)
        (x ** c["p"]).backward(np.array(c["g"]))
        rec.close(f"pow[{i}] x ** {c['p']} .grad", x.grad, **TOL)
