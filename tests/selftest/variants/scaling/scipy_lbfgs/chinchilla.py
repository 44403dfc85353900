"""The Chinchilla parametric loss L(N, D) = E + A/N^alpha + B/D^beta, and its Approach-3 fit.

Hoffmann et al. (2022), Section 3.3 and Appendix D.2: minimize, over theta = (a, b, e, alpha, beta),

    sum_i Huber_delta( LSE(a - alpha log N_i, b - beta log D_i, e) - log L_i )

with L-BFGS from a grid of starts, then A = exp(a), B = exp(b), E = exp(e).
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np


class ScalingParams(NamedTuple):
    """Parameters of L(N, D) = E + A / N**alpha + B / D**beta."""

    E: float
    A: float
    B: float
    alpha: float
    beta: float


def chinchilla_loss(N, D, p: ScalingParams):
    """L(N, D) = E + A / N^alpha + B / D^beta; N, D broadcast (floats or arrays)."""
    N, D = np.asarray(N, dtype=float), np.asarray(D, dtype=float)
    return p.E + p.A / N**p.alpha + p.B / D**p.beta


# The Chinchilla grid of starts, as (a, b, e, alpha, beta): 6 * 6 * 5 * 5 * 5 = 4,500 points.
CHINCHILLA_GRID = [
    tuple(float(v) for v in start)
    for start in itertools.product(
        np.arange(0, 26, 5),  # a
        np.arange(0, 26, 5),  # b
        np.arange(-1, 1.01, 0.5),  # e
        np.arange(0, 2.01, 0.5),  # alpha
        np.arange(0, 2.01, 0.5),  # beta
    )
]


def huber(r: np.ndarray, delta: float) -> np.ndarray:
    """r^2 / 2 for |r| <= delta, delta * (|r| - delta / 2) beyond: continuous value and slope."""
    small = np.minimum(np.abs(r), delta)
    return small * (np.abs(r) - 0.5 * small)


def objective(theta, logN, logD, logL, delta):
    """Summed Huber loss of the residuals log L-hat - log L, and its gradient in theta.

    theta: (5,) or (S, 5) rows (a, b, e, alpha, beta), one problem per row;
    log L-hat = LSE(a - alpha log N, b - beta log D, e). logN, logD, logL: (n,).
    Returns (values (S,), gradients (S, 5)), or a float and a (5,) array for a single theta.
    """
    a, b, e, alpha, beta = (np.asarray(theta, dtype=float)[..., j, None] for j in range(5))
    terms = np.stack(np.broadcast_arrays(a - alpha * logN, b - beta * logD, e))  # (3, S, n)
    top = terms.max(axis=0)
    z = np.exp(terms - top)
    total = z.sum(axis=0)
    pred = top + np.log(total)  # log L-hat = LSE(terms), computed stably
    r = pred - logL
    dr = z / total  # d r / d terms: the softmax weights
    g = dr * np.clip(r, -delta, delta)  # chain rule through Huber'(r), per term and point
    grad = np.stack([g[0].sum(-1), g[1].sum(-1), g[2].sum(-1), -g[0] @ logN, -g[1] @ logD], -1)
    return huber(r, delta).sum(-1), grad


def fit_scaling_law(N, D, loss, delta: float = 1e-3, starts=None) -> ScalingParams:
    """The handout's recipe, written independently of the reference: scipy's L-BFGS-B with
    jac=True and its default tolerances, one start at a time, the lowest objective kept (ties:
    the last start seen). Returns numpy floats (the tests read them with float())."""
    from scipy.optimize import minimize
    from scipy.special import logsumexp

    logN, logD, logL = (np.log(np.asarray(x, dtype=float)) for x in (N, D, loss))

    def value_and_grad(theta):
        a, b, e, alpha, beta = theta
        terms = np.stack([a - alpha * logN, b - beta * logD, np.full_like(logN, e)])
        pred = logsumexp(terms, axis=0)
        soft = np.exp(terms - pred)
        r = pred - logL
        inside = np.abs(r) <= delta
        value = np.sum(np.where(inside, 0.5 * r * r, delta * (np.abs(r) - 0.5 * delta)))
        dr = np.where(inside, r, delta * np.sign(r))
        grad = np.array([dr @ soft[0], dr @ soft[1], dr @ soft[2],
                         -(dr * logN) @ soft[0], -(dr * logD) @ soft[1]])
        return value, grad

    best = None
    for theta0 in (CHINCHILLA_GRID if starts is None else starts):
        res = minimize(value_and_grad, np.asarray(theta0, dtype=float), jac=True,
                       method="L-BFGS-B")
        if best is None or res.fun <= best.fun:
            best = res
    a, b, e, alpha, beta = best.x
    return ScalingParams(E=np.exp(e), A=np.exp(a), B=np.exp(b), alpha=alpha, beta=beta)
