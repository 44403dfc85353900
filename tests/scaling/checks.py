"""Parent-side checks for `scaling` (trusted; never imported in the sandbox)."""

import numpy as np
from scipy.optimize import brentq


def is_compute_optimal(observed, ctx) -> str | None:
    """observed: [N_opt, D_opt] arrays for the budgets ctx.inputs[i]["C"]. Requires 6ND = C and
    N within 1e-6 (relative) of the numerical minimizer of L(N, C / 6N) over log N
    (the root of its slope)."""
    i = int(ctx.name.split("[")[1].rstrip("]"))
    case = ctx.inputs[i]
    C, p = np.asarray(case["C"], float), case["p"]
    try:
        N, D = (np.asarray(v, float) for v in observed)
    except (TypeError, ValueError):
        return "expected [N_opt, D_opt]"
    if N.shape != C.shape or D.shape != C.shape:
        return f"expected shapes {C.shape}, got {N.shape} and {D.shape}"
    if not (np.all(np.isfinite(N)) and np.all(np.isfinite(D)) and np.all(N > 0) and np.all(D > 0)):
        return "N_opt and D_opt must be finite and positive"
    if not np.allclose(6 * N * D, C, rtol=1e-9, atol=0):
        return "6 * N_opt * D_opt does not equal the budget C"
    _, A, B, alpha, beta = p
    for c, n in zip(C, N):
        # L(N, C/6N) over x = log N is convex; its minimizer is where its slope
        #   dL/dx = -alpha A N^-alpha + beta B D^-beta   (D = C/6N)
        # is zero, found by a root-finder to machine precision (a minimizer of L itself stops
        # at sqrt(machine epsilon) in x, about 1e-6 relative in N at large budgets, the
        # tolerance asked)
        def slope(x, c=c):
            return -alpha * A * np.exp(-alpha * x) + beta * B * (c / 6 / np.exp(x)) ** -beta
        lo, hi = np.log(1e3), np.log(c / 6) - np.log(1e3)
        if slope(lo) >= 0 or slope(hi) <= 0:  # the minimizer is at an end of the range
            best = np.exp(lo if slope(lo) >= 0 else hi)
        else:
            best = np.exp(brentq(slope, lo, hi, xtol=1e-14, rtol=1e-15))
        if abs(n / best - 1) > 1e-6:
            return f"at C={c:.3g}: N_opt={n:.6g}, but L(N, C/6N) is minimized at N={best:.6g}"
    return None
