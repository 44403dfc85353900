"""Task 5: SGD, zero_grad, and what a missing zero_grad does: k backward passes at fixed
parameters leave k times the gradient, which the next step() applies as a k-times learning rate."""

import numpy as np

from autograder.harness import graded
from minigrad import SGD, Tensor

TOL = {"atol": 1e-10, "rtol": 1e-8}  # contract: SPEC 5.1 Tensor wraps float64 (not free)


def regression_cases(rng):
    return [{"x": rng.normal(size=(8, 3)), "y": rng.normal(size=(8, 2)),
             "w": rng.normal(size=(3, 2)), "b": rng.normal(size=2), "k": k} for k in (2, 3, 5)]


def loss_of(c, w, b):
    return ((Tensor(c["x"]) @ w + b - Tensor(c["y"])) ** 2).mean()


@graded(points=3, cases=regression_cases)
def test_gradients_accumulate_over_passes(rec, cases):
    """k backward passes at fixed parameters, no zero_grad in between: k times the gradient,
    which the next SGD step applies as a k-times learning rate."""
    for i, c in enumerate(cases):
        w = Tensor(np.array(c["w"]), requires_grad=True)
        b = Tensor(np.array(c["b"]), requires_grad=True)
        for step in range(c["k"]):
            loss_of(c, w, b).backward()
            rec.close(f"[{i}].pass{step + 1}.w.grad", np.array(w.grad), **TOL)
            rec.close(f"[{i}].pass{step + 1}.b.grad", np.array(b.grad), **TOL)
        SGD([w, b], lr=0.1).step()
        rec.close(f"[{i}].after_step.w", np.array(w.data), **TOL)
        rec.close(f"[{i}].after_step.b", np.array(b.data), **TOL)


@graded(points=3, cases=regression_cases)
def test_zero_grad(rec, cases):
    """After zero_grad the gradient is gone (None or zeros: both fine), and the next backward
    gives exactly one pass's gradient."""
    for i, c in enumerate(cases):
        w = Tensor(np.array(c["w"]), requires_grad=True)
        b = Tensor(np.array(c["b"]), requires_grad=True)
        opt = SGD([w, b], lr=0.1)
        for _ in range(c["k"]):
            loss_of(c, w, b).backward()
        opt.zero_grad()
        for name, t in (("w", w), ("b", b)):
            cleared = np.zeros(t.shape) if t.grad is None else np.array(t.grad)
            rec.close(f"[{i}].after_zero_grad.{name}.grad", cleared, **TOL)
        loss_of(c, w, b).backward()
        rec.close(f"[{i}].next_pass.w.grad", w.grad, **TOL)
        rec.close(f"[{i}].next_pass.b.grad", b.grad, **TOL)


@graded(points=3, cases=regression_cases)
def test_training_loop(rec, cases):
    """zero_grad, backward, step, repeated: parameters follow p <- p - lr * grad."""
    for i, c in enumerate(cases):
        w = Tensor(np.array(c["w"]), requires_grad=True)
        b = Tensor(np.array(c["b"]), requires_grad=True)
        opt = SGD([w, b], lr=0.05)
        for step in range(c["k"] + 2):
            opt.zero_grad()
            loss = loss_of(c, w, b)
            loss.backward()
            opt.step()
            rec.close(f"[{i}].loss[{step}]", float(loss.data), **TOL)
        rec.close(f"[{i}].w", w.data, **TOL)
        rec.close(f"[{i}].b", b.data, **TOL)
