"""Whole Jacobians from either mode, and which mode is cheaper.

For f: Rⁿ → Rᵐ, forward mode gets one column of J per JVP (n passes), reverse mode one row per
pullback (m pullbacks of one recorded tape). Both return J with shape f(x).shape + x.shape,
J[i..., j...] = ∂f(x)[i...] / ∂x[j...], as torch.func.jacfwd / jacrev do.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ad_modes.dual import jvp  # noqa: F401 - the starter keeps it for the code you write
from ad_modes.tape import vjp  # noqa: F401


def jacobian_fwd(f: Callable, x) -> np.ndarray:
    """The Jacobian of f at x from n = x.size JVPs, one per basis vector: f is called exactly
    n times. Shape f(x).shape + x.shape."""
    ### BEGIN SOLUTION
    x = np.asarray(x, dtype=np.float64)
    columns, out_shape = [], ()
    for j in range(x.size):
        basis = np.zeros(x.size)
        basis[j] = 1.0
        y, column = jvp(f, x, basis.reshape(x.shape))  # column j: J e_j
        out_shape = np.shape(y)
        columns.append(np.asarray(column, dtype=np.float64).reshape(-1))
    jac = np.stack(columns, axis=-1)  # (m, n): columns side by side
    return jac.reshape(out_shape + x.shape)
    ### END SOLUTION


def jacobian_rev(f: Callable, x) -> np.ndarray:
    """The Jacobian of f at x from one tape and m = f(x).size pullbacks, one per basis vector
    of the output: f is called once. Shape f(x).shape + x.shape."""
    ### BEGIN SOLUTION
    x = np.asarray(x, dtype=np.float64)
    y, pullback = vjp(f, x)
    y = np.asarray(y)
    rows = []
    for i in range(y.size):
        basis = np.zeros(y.size)
        basis[i] = 1.0
        rows.append(np.asarray(pullback(basis.reshape(y.shape)), dtype=np.float64).reshape(-1))
    jac = np.stack(rows, axis=0) if rows else np.zeros((0, x.size))  # (m, n): row i is e_iᵀ J
    return jac.reshape(y.shape + x.shape)
    ### END SOLUTION


def cheaper_mode(n: int, m: int) -> str:
    """For f: Rⁿ → Rᵐ: "forward" (n JVPs) or "reverse" (m VJPs), whichever needs fewer passes;
    a tie goes to "forward" (the same number of passes, and no tape to store)."""
    ### BEGIN SOLUTION
    return "forward" if n <= m else "reverse"
    ### END SOLUTION
