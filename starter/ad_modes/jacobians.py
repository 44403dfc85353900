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
    raise NotImplementedError


def jacobian_rev(f: Callable, x) -> np.ndarray:
    """The Jacobian of f at x from one tape and m = f(x).size pullbacks, one per basis vector
    of the output: f is called once. Shape f(x).shape + x.shape."""
    raise NotImplementedError


def cheaper_mode(n: int, m: int) -> str:
    """For f: Rⁿ → Rᵐ: "forward" (n JVPs) or "reverse" (m VJPs), whichever needs fewer passes;
    a tie goes to "forward" (the same number of passes, and no tape to store)."""
    raise NotImplementedError
