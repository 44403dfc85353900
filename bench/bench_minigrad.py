"""minigrad backward cost per node, as a ratio to torch.autograd on the same graph.

    python bench/bench_minigrad.py [--impl DIR]     # DIR holds a minigrad/ package (default: solutions)

Each graph is built once per repeat in both engines, and only `backward()` is timed (best of
the repeats). Both run single-threaded in float64 on the CPU, so the ratio compares the engines'
per-node bookkeeping (small arrays) and their kernels (large arrays).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from benchrows import guarded, print_rows, row  # noqa: E402


def chain(T, x, n):
    """n ops in a line on a small array: per-node overhead dominates."""
    y = x
    for k in range(n // 2):
        y = (y * 1.0001).tanh() if k % 2 else y + 0.001
    return y.sum(), n + 1


def diamonds(T, x, n):
    """n diamonds (4 ops each): every node has two uses."""
    y = x
    for _ in range(n):
        y = y * 0.5 + (y * 0.5).tanh()
    return y.sum(), 4 * n + 2


def mlp(T, x, width):
    """An 8-layer tanh MLP on a (64, width) batch: matmul kernels dominate."""
    rng = np.random.default_rng(0)
    h, nodes = x, 1
    for _ in range(8):
        w = T(rng.normal(scale=width**-0.5, size=(width, width)), requires_grad=True)
        h = (h @ w).tanh()
        nodes += 3
    return (h * h).mean(), nodes + 2


def torch_tensor(data, requires_grad=False):
    return torch.tensor(np.asarray(data, dtype=np.float64), requires_grad=requires_grad)


def best_backward(T, graph, make_input, size, repeats, torch_style):
    best, nodes = float("inf"), 0
    for _ in range(repeats):
        x = T(make_input(), requires_grad=True)
        root, nodes = graph(T, x, size)
        start = time.perf_counter()
        if torch_style:
            root.backward(retain_graph=False)
        else:
            root.backward()
        best = min(best, time.perf_counter() - start)
    return best, nodes


CASES = [
    ("chain, 10,000 ops, (8,) arrays", chain, 8, 10000),
    ("60-op diamonds x 50, (8,) arrays", diamonds, 8, 50),
    ("tanh MLP 8 x (64,256)@(256,256)", mlp, (64, 256), 256),
]


def measure(impl: str, repeats: int = 5) -> list[tuple[str, int, float, float]]:
    """(graph, nodes, minigrad seconds, torch seconds) per case: best backward() of `repeats`."""
    sys.path.insert(0, str(Path(impl).resolve()))
    from minigrad import Tensor

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    out = []
    for name, graph, shape, size in CASES:
        def make_input(shape=shape):
            return rng.normal(size=shape)
        ours, nodes = best_backward(Tensor, graph, make_input, size, repeats, False)
        theirs, _ = best_backward(torch_tensor, graph, make_input, size, repeats, True)
        out.append((name, nodes, ours, theirs))
    return out


def table_rows(results, repeats: int) -> list[dict]:
    """measure()'s results as rows of the performance table."""
    return [row("minigrad", f"backward per node: {name} ({nodes:,} nodes)", 1e6 * ours / nodes,
                "us/node", peer=1e6 * theirs / nodes, peer_name="torch.autograd",
                note=f"float64, 1 thread, best of {repeats}; lower is better")
            for name, nodes, ours, theirs in results]


def rows(impl: str = str(ROOT / "solutions"), repeats: int = 5) -> list[dict]:
    """One row per graph: backward microseconds per node, minigrad vs torch.autograd."""
    return guarded("minigrad", [f"backward per node: {c[0]}" for c in CASES],
                   lambda: table_rows(measure(impl, repeats), repeats))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", default=str(ROOT / "solutions"))
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    results = measure(args.impl, args.repeats)
    print(f"minigrad from {args.impl} vs torch {torch.__version__} autograd "
          f"(float64, 1 thread, best of {args.repeats} backward passes)")
    print(f"{'graph':36} {'nodes':>7} {'minigrad us/node':>17} {'torch us/node':>14} {'ratio':>7}")
    for name, nodes, ours, theirs in results:
        print(f"{name:36} {nodes:7d} {1e6 * ours / nodes:17.2f} {1e6 * theirs / nodes:14.2f} "
              f"{ours / theirs:6.1f}x")
    print_rows(table_rows(results, args.repeats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
