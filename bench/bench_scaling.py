"""Speed of the Chinchilla Approach-3 fit: the full grid of 4,500 starts on 245 runs.

    python bench/bench_scaling.py [--impl solutions|starter|DIR]

Ours: `scaling.fit_scaling_law` (analytic gradient; objective vectorized over runs and over
starts; L-BFGS on all starts in lockstep). Peer, measured in the same run: the plain scipy loop,
one `minimize(method="L-BFGS-B")` per start on the same Huber objective with finite-difference
gradients. The peer runs on every 10th start of the grid (450 starts) and is scaled by 10 to
estimate the full grid, so the bench stays near a minute; the ratio is also reported on those
same 450 starts. For reference, it also times the scipy loop with the solution's analytic
gradient (what a per-start implementation gets). Wall and CPU seconds are both shown (CPU is
steadier on a shared machine).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
from scipy.optimize import minimize

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from benchrows import guarded, print_rows, row  # noqa: E402


def plain_objective(theta, logN, logD, logL, delta=1e-3):
    a, b, e, alpha, beta = theta
    pred = np.logaddexp(np.logaddexp(a - alpha * logN, b - beta * logD), e)
    r = np.abs(pred - logL)
    return np.where(r <= delta, 0.5 * r**2, delta * (r - 0.5 * delta)).sum()


def plain_fit(N, D, loss, starts, jac=False):
    """The plain loop: one L-BFGS-B per start; finite-difference gradients unless jac=True
    (then the solution's analytic `objective`, one start at a time)."""
    logs = (np.log(N), np.log(D), np.log(loss))
    if jac:
        from scaling.chinchilla import objective
        fn, logs = objective, (*logs, 1e-3)
    else:
        fn = plain_objective
    best = min((minimize(fn, s, args=logs, method="L-BFGS-B", jac=jac or None) for s in starts),
               key=lambda r: r.fun)
    a, b, e, alpha, beta = best.x
    return np.exp(e), np.exp(a), np.exp(b), alpha, beta


def measure(impl: str = "solutions") -> dict:
    """Wall and CPU seconds of ours (full grid, and every 10th start) and of the scipy loops."""
    impl_dir = Path(impl) if Path(impl).is_dir() else ROOT / impl
    sys.path.insert(0, str(impl_dir))
    from scaling import CHINCHILLA_GRID, ScalingParams, chinchilla_loss, fit_scaling_law

    rng = np.random.default_rng(0)
    n = 245
    truth = ScalingParams(E=1.69, A=406.4, B=410.7, alpha=0.34, beta=0.28)
    N = np.exp(rng.uniform(np.log(1e6), np.log(1e10), n))
    D = np.exp(rng.uniform(np.log(1e7), np.log(1e12), n))
    loss = chinchilla_loss(N, D, truth) * np.exp(1e-3 * rng.normal(size=n))
    subset = CHINCHILLA_GRID[::10]

    full, t_full = timed(fit_scaling_law, N, D, loss)
    ours_sub, t_ours = timed(fit_scaling_law, N, D, loss, starts=subset)
    peer_sub, t_peer = timed(plain_fit, N, D, loss, subset)
    try:  # the reference's per-start objective, if this implementation has one
        _, t_grad = timed(plain_fit, N, D, loss, subset, jac=True)
    except ImportError:
        t_grad = (float("nan"), float("nan"))
    return {"n": n, "grid": len(CHINCHILLA_GRID), "subset": len(subset), "truth": tuple(truth),
            "full": full, "ours_sub": ours_sub, "peer_sub": peer_sub, "t_full": t_full,
            "t_ours": t_ours, "t_peer": t_peer, "t_grad": t_grad,
            "scale": len(CHINCHILLA_GRID) / len(subset)}


def report(m: dict) -> None:
    """The human-readable lines of a run alone."""
    t_full, t_ours, t_peer, t_grad, scale = (m["t_full"], m["t_ours"], m["t_peer"], m["t_grad"],
                                             m["scale"])
    full, sub = m["full"], m["subset"]
    print(f"scaling: Chinchilla Approach-3 fit, {m['n']} runs, OPENBLAS_NUM_THREADS="
          f"{os.environ['OPENBLAS_NUM_THREADS']}  (wall s / CPU s)")
    print(f"  ours, full grid ({m['grid']} starts):           "
          f"{t_full[0]:7.2f} / {t_full[1]:7.2f}")
    print(f"  ours, {sub} starts:                          "
          f"{t_ours[0]:7.2f} / {t_ours[1]:7.2f}")
    print(f"  plain scipy loop (finite-diff), {sub} starts:  "
          f"{t_peer[0]:7.2f} / {t_peer[1]:7.2f}   full grid est. "
          f"{t_peer[0] * scale:.0f} / {t_peer[1] * scale:.0f}")
    print(f"  (scipy loop with our analytic gradient, {sub} starts: "
          f"{t_grad[0]:.2f} / {t_grad[1]:.2f})")
    print(f"  speed-up, same {sub} starts: {t_peer[0] / t_ours[0]:.1f}x wall, "
          f"{t_peer[1] / t_ours[1]:.1f}x CPU")
    print(f"  speed-up, full grid (peer estimated): {t_peer[0] * scale / t_full[0]:.1f}x wall, "
          f"{t_peer[1] * scale / t_full[1]:.1f}x CPU")
    print(f"  fit (full grid): E={full.E:.4f} A={full.A:.1f} B={full.B:.1f} "
          f"alpha={full.alpha:.4f} beta={full.beta:.4f}   truth: {m['truth']}")
    print(f"  alpha on {sub} starts: ours {m['ours_sub'].alpha:.5f}, "
          f"plain scipy {m['peer_sub'][3]:.5f}")


def table_rows(m: dict) -> list[dict]:
    """measure()'s result as rows of the performance table (CPU seconds: steadier when shared)."""
    n, grid, sub = m["n"], m["grid"], m["subset"]
    return [
        row("scaling", f"fit_scaling_law, full grid ({grid:,} starts), {n} runs", m["t_full"][1],
            "CPU s", peer=m["t_peer"][1] * m["scale"],
            peer_name="plain scipy L-BFGS-B loop, finite differences",
            note=f"peer timed on every 10th start (x{m['scale']:.0f}); lower is better"),
        row("scaling", f"fit_scaling_law, {sub} starts (every 10th), {n} runs", m["t_ours"][1],
            "CPU s", peer=m["t_peer"][1],
            peer_name="plain scipy L-BFGS-B loop, finite differences", note="lower is better"),
        row("scaling", f"fit_scaling_law, {sub} starts (every 10th), {n} runs", m["t_ours"][1],
            "CPU s", peer=m["t_grad"][1],
            peer_name="scipy L-BFGS-B loop, analytic gradient",
            note="lockstep vs one start at a time; lower is better"),
    ]


def rows(impl: str = "solutions") -> list[dict]:
    """The Approach-3 fit against plain scipy loops, same data, same run."""
    return guarded("scaling", ["fit_scaling_law, full grid", "fit_scaling_law, 450 starts"],
                   lambda: table_rows(measure(impl)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--impl", default="solutions")
    args = ap.parse_args()
    m = measure(args.impl)
    report(m)
    print_rows(table_rows(m))


def timed(fn, *args, **kwargs):
    """(fn's result, (wall seconds, CPU seconds))."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    return out, (time.perf_counter() - wall, time.process_time() - cpu)


if __name__ == "__main__":
    main()
