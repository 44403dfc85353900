"""Task 5 (hidden): SGD with gradient accumulation over micro-batches, parameters the loss
does not reach, and the learning-rate multiplication of a missing zero_grad."""

import numpy as np

from autograder.harness import graded
from minigrad import SGD, Tensor

TOL = {"atol": 1e-10, "rtol": 1e-8}  # contract: SPEC 5.1 Tensor wraps float64 (not free)


def data_cases(rng):
    return [{"x": rng.normal(size=(6, 3)), "y": rng.normal(size=(6, 1)),
             "w": rng.normal(size=(3, 1)), "unused": rng.normal(size=2), "lr": lr}
            for lr in (0.01, 0.1)]


def micro_loss(c, w, rows):
    return ((Tensor(c["x"][rows]) @ w - Tensor(c["y"][rows])) ** 2).sum()


@graded(points=3, cases=data_cases)
def test_accumulation_over_micro_batches(rec, cases):
    """Gradient accumulation done right: zero_grad once per step, two micro-batch backward
    passes, one step. Equals one step on the full batch."""
    for i, c in enumerate(cases):
        w = Tensor(np.array(c["w"]), requires_grad=True)
        opt = SGD([w], lr=c["lr"])
        for step in range(5):
            opt.zero_grad()
            micro_loss(c, w, slice(0, 3)).backward()
            micro_loss(c, w, slice(3, 6)).backward()
            opt.step()
            rec.close(f"[{i}].step{step}.w", np.array(w.data), **TOL)


@graded(points=3, cases=data_cases)
def test_missing_zero_grad_multiplies_lr(rec, cases):
    """k backward passes at fixed w, then one step: the step is k times lr * grad."""
    for i, c in enumerate(cases):
        for k in (1, 2, 4):
            w = Tensor(np.array(c["w"]), requires_grad=True)
            unused = Tensor(np.array(c["unused"]), requires_grad=True)  # never reached by the loss
            opt = SGD([w, unused], lr=c["lr"])
            opt.zero_grad()
            for _ in range(k):
                micro_loss(c, w, slice(0, 6)).backward()
            opt.step()
            rec.close(f"[{i}].k{k}.w", w.data, **TOL)
            rec.close(f"[{i}].k{k}.unused", unused.data, **TOL)
            opt.zero_grad()
            micro_loss(c, w, slice(0, 6)).backward()
            rec.close(f"[{i}].k{k}.grad_after_zero_grad", w.grad, **TOL)
