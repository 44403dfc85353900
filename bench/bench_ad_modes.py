"""ad_modes against torch: Jacobians, O(n) VJPs, and the pass counts behind "why backprop".

    python bench/bench_ad_modes.py [--impl DIR]   # DIR holds an ad_modes/ package (default: solutions)

`rows()` returns the README performance-table rows (group, what, ours, peer, peer_name, unit,
ratio, note). Times are the best of a few repeats, single-threaded, float64, measured in the
same run as the peer; counts are counted, not timed (calls of f and primitive evaluations
through a counting wrapper of `ad_modes.ops`). No number here is a pass/fail threshold.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np
import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parent.parent
GROUP = "ad_modes"


def best_of(fn, repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def row(what, ours, peer, peer_name, unit, note) -> dict:
    ratio = ours / peer if peer else None
    return {"group": GROUP, "what": what, "ours": float(ours),
            "peer": None if peer is None else float(peer), "peer_name": peer_name, "unit": unit,
            "ratio": ratio, "note": note}


def mlp(P, W1, W2):
    """f: R^n -> R^m, tanh(W2 sin(W1 x)), written once for both engines (P: the primitives)."""
    return lambda x: P.tanh(P.dot(W2, P.sin(P.dot(W1, x))))


class TorchPrims:
    sin, tanh = staticmethod(torch.sin), staticmethod(torch.tanh)
    dot = staticmethod(lambda a, b: torch.matmul(torch.as_tensor(a), torch.as_tensor(b)))


class CountingPrims:
    """The student's ops, counting every primitive call."""

    def __init__(self, ops):
        self.ops, self.calls = ops, 0

    def __getattr__(self, name):
        fn = getattr(self.ops, name)

        def call(*args, **kwargs):
            self.calls += 1
            return fn(*args, **kwargs)
        return call


def jacobian_rows(ad) -> list[dict]:
    rng = np.random.default_rng(0)
    n, m = 64, 16
    W1, W2 = rng.normal(size=(32, n)) / 8, rng.normal(size=(m, 32)) / 6
    x = rng.normal(size=n)
    f_ours, f_torch = mlp(ad.ops, W1, W2), mlp(TorchPrims, W1, W2)
    xt = torch.tensor(x)
    rev = best_of(lambda: ad.jacobian_rev(f_ours, x))
    rev_peer = best_of(lambda: torch.func.jacrev(f_torch)(xt))
    fwd = best_of(lambda: ad.jacobian_fwd(f_ours, x))
    fwd_peer = best_of(lambda: torch.func.jacfwd(f_torch)(xt))
    what = f"Jacobian of tanh(W2 sin(W1 x)), n={n} -> m={m}"
    return [row(f"jacobian_rev, {what}", 1e3 * rev, 1e3 * rev_peer, "torch.func.jacrev", "ms",
                "ratio = ours / torch; lower is better (jacrev vmaps the m pullbacks)"),
            row(f"jacobian_fwd, {what}", 1e3 * fwd, 1e3 * fwd_peer, "torch.func.jacfwd", "ms",
                "ratio = ours / torch; lower is better (jacfwd vmaps the n JVPs)")]


def vjp_rows(ad) -> list[dict]:
    rng = np.random.default_rng(1)
    n = 4096
    x, g, gamma = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
    xt = torch.tensor(x, requires_grad=True)
    gt, gammat = torch.tensor(g), torch.tensor(gamma)

    def torch_layernorm_vjp():
        return torch.autograd.grad(F.layer_norm(xt, (n,), weight=gammat), xt, gt)[0]

    def torch_softmax_vjp():
        return torch.autograd.grad(torch.softmax(xt, dim=0), xt, gt)[0]

    ln = best_of(lambda: ad.layernorm_vjp(x, g, gamma=gamma), 20)
    ln_peer = best_of(torch_layernorm_vjp, 20)
    sm = best_of(lambda: ad.softmax_vjp(x, g), 20)
    sm_peer = best_of(torch_softmax_vjp, 20)
    tracemalloc.start()
    ad.layernorm_vjp(x, g, gamma=gamma)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return [
        row(f"layernorm_vjp, n={n}", 1e3 * ln, 1e3 * ln_peer,
            "torch autograd (F.layer_norm forward + backward)", "ms",
            "ratio = ours / torch; lower is better (torch's time includes its forward)"),
        row(f"softmax_vjp, n={n}", 1e3 * sm, 1e3 * sm_peer,
            "torch autograd (softmax forward + backward)", "ms",
            "ratio = ours / torch; lower is better (torch's time includes its forward)"),
        row(f"layernorm_vjp peak memory, n={n}", peak / 2**20, 8 * n * n / 2**20,
            "the n x n Jacobian it avoids (float64)", "MiB",
            "tracemalloc peak; ratio = ours / J's size; lower is better"),
    ]


def pass_rows(ad) -> list[dict]:
    """Counted passes for a scalar loss of n inputs: forward mode evaluates f n times,
    reverse mode once (plus one backward sweep of the same length)."""
    rng = np.random.default_rng(2)
    n = 1000
    A, x = rng.normal(size=(8, n)) / np.sqrt(n), rng.normal(size=n)
    rows = []
    for name, jac in (("jacobian_fwd", ad.jacobian_fwd), ("jacobian_rev", ad.jacobian_rev)):
        prims = CountingPrims(ad.ops)
        calls = [0]

        def loss(z, prims=prims, calls=calls):
            calls[0] += 1
            return prims.sum(prims.log(1.0 + prims.exp(prims.dot(A, z))))

        jac(loss, x)
        rows.append((name, calls[0], prims.calls))
    (_, fwd_calls, fwd_prims), (_, rev_calls, rev_prims) = rows
    return [row(f"primitive evaluations for the gradient of a scalar loss, n={n}: "
                f"forward ({fwd_calls} calls of f) vs reverse ({rev_calls})",
                fwd_prims, rev_prims, "ad_modes reverse mode (jacobian_rev)", "evaluations",
                "counted, not timed; ratio = forward / reverse = n for a scalar loss")]


def rows(impl: str | None = None) -> list[dict]:
    sys.path.insert(0, str(Path(impl or ROOT / "solutions").resolve()))
    import ad_modes

    torch.set_num_threads(1)
    return jacobian_rows(ad_modes) + vjp_rows(ad_modes) + pass_rows(ad_modes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", default=None, help="folder holding ad_modes/ (default: solutions)")
    args = parser.parse_args()
    print(f"{'what':78} {'ours':>10} {'peer':>10} {'unit':>11} {'ratio':>8}")
    for r in rows(args.impl):
        peer = "-" if r["peer"] is None else f"{r['peer']:.4g}"
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.3g}"
        print(f"{r['what'][:78]:78} {r['ours']:10.4g} {peer:>10} {r['unit']:>11} {ratio:>8}"
              f"   vs {r['peer_name']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
