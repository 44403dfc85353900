"""repro speed as ratios to PyTorch/SciPy peers, measured in the same run on the same data.

    python bench/bench_repro.py [--impl DIR]      # DIR holds a repro/ package (default: solutions)

1. Deterministic mode on CUDA: one training step (forward, backward, SGD) of a small
   embedding + conv + MLP model with deterministic_mode() vs without: the cost of bitwise
   determinism. "not measured: no CUDA" on a machine without a GPU.
2. ordered_sum (one Python-level add per value, strictly left to right) vs torch.sum (vectorized,
   pairwise) on 10,000 float32 values: what the strict order costs on the CPU.
3. welch_t_test vs scipy.stats.ttest_ind(equal_var=False) on two groups of 10 and 12 values.
A ratio > 1 means ours (the first) is slower. Median of the timed repetitions.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent


def median_time(fn: Callable[[], object], repeat: int, warmup: int = 2, sync: bool = False) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        if sync:
            torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        if sync:
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def row(what: str, ours: float | None, peer: float | None, peer_name: str | None, unit: str,
        note: str) -> dict:
    ratio = ours / peer if ours is not None and peer else None
    return {"group": "repro", "what": what, "ours": ours, "peer": peer, "peer_name": peer_name,
            "unit": unit, "ratio": ratio, "note": note}


def cuda_step_rows() -> list[dict]:
    what = "training step, deterministic_mode() vs default (embedding 50k x 256, conv1d, MLP; batch 64 x 128 tokens)"
    if not torch.cuda.is_available():
        return [row(what, None, None, "default (non-deterministic) mode", "ms",
                    "not measured: no CUDA")]
    from repro import deterministic_mode

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Embedding(50_000, 256), Transpose(), torch.nn.Conv1d(256, 256, 5, padding=2),
        torch.nn.GELU(), Transpose(), torch.nn.Linear(256, 1024), torch.nn.GELU(),
        torch.nn.Linear(1024, 256)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    ids = torch.randint(0, 50_000, (64, 128), device="cuda")

    def step():
        model(ids).square().mean().backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    default = median_time(step, 30, warmup=5, sync=True)
    with deterministic_mode():
        deterministic = median_time(step, 30, warmup=5, sync=True)
    return [row(what, deterministic * 1e3, default * 1e3, "default (non-deterministic) mode", "ms",
                f"ratio > 1: deterministic mode is slower; {torch.cuda.get_device_name()}")]


class Transpose(torch.nn.Module):
    """(B, T, C) <-> (B, C, T), for the conv layer."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.transpose(1, 2)


def cpu_rows() -> list[dict]:
    import numpy as np
    from scipy import stats

    from repro import ordered_sum, welch_t_test

    g = torch.Generator().manual_seed(0)
    values = torch.randn(10_000, generator=g)
    order = torch.randperm(10_000, generator=g).tolist()
    ours = median_time(lambda: ordered_sum(values, order), 5)
    permuted = values[order]
    peer = median_time(lambda: torch.sum(permuted), 50)
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=10).tolist(), (1 + 2 * rng.normal(size=12)).tolist()
    ours_t = median_time(lambda: welch_t_test(a, b), 200)
    peer_t = median_time(lambda: stats.ttest_ind(a, b, equal_var=False), 200)
    return [row("ordered_sum vs torch.sum, 10,000 float32", ours * 1e3, peer * 1e3, "torch.sum", "ms",
                "ratio > 1: ours is slower (one Python-level add per value, by design)"),
            row("welch_t_test vs scipy, 10 + 12 values", ours_t * 1e6, peer_t * 1e6,
                "scipy.stats.ttest_ind(equal_var=False)", "us", "ratio > 1: ours is slower")]


def rows(impl: str | None = None) -> list[dict]:
    """The README's performance rows for repro (see the module docstring)."""
    sys.path.insert(0, str(Path(impl).resolve()) if impl else str(ROOT / "solutions"))
    return cuda_step_rows() + cpu_rows()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", default=None, help="folder holding a repro/ package")
    for r in rows(parser.parse_args().impl):
        ours = "-" if r["ours"] is None else f"{r['ours']:.4g}"
        peer = "-" if r["peer"] is None else f"{r['peer']:.4g}"
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.3g}x"
        print(f"{r['what']}: ours {ours} {r['unit']}, {r['peer_name']} {peer} {r['unit']}, "
              f"ratio {ratio} ({r['note']})")
