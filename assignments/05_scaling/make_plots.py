"""Draw the handout's figures from the reference solution (instructors).

    .venv/bin/python assignments/05_scaling/make_plots.py

Writes isoflop.png, frontier.png and inference.png next to this file. Every number comes from
`solutions/scaling` applied to Chinchilla's Approach-3 law (Hoffmann et al., 2022) and the Epoch AI
refit (Besiroglu et al., 2024); the isoFLOP runs are synthetic (that law plus 0.5 % noise).
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "solutions"))
from scaling import (
    ScalingParams,
    chinchilla_loss,
    compute_optimal,
    fit_power_law,
    inference_optimal,
    isoflop_minima,
)

CHINCHILLA = ScalingParams(E=1.69, A=406.4, B=410.7, alpha=0.34, beta=0.28)
EPOCH = ScalingParams(E=1.82, A=482.0, B=2085.0, alpha=0.348, beta=0.366)
BUDGETS = [6e18, 3e19, 1e20, 3e20, 1e21, 3e21]


def synthetic_sweep(rng):
    runs = []
    for C in BUDGETS:
        n_opt, _ = compute_optimal(C, CHINCHILLA)
        for N in float(n_opt) * np.geomspace(1 / 12, 12, 9):
            loss = float(chinchilla_loss(N, C / (6 * N), CHINCHILLA)) * np.exp(5e-3 * rng.normal())
            runs.append((C, N, loss))
    return runs


def plot_isoflop(runs, minima):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    colors = plt.cm.viridis(np.linspace(0, 0.9, len(BUDGETS)))
    for color, (C, n_opt, loss_opt) in zip(colors, minima):
        pts = np.array([(N, loss) for c, N, loss in runs if c == C])
        ax.scatter(pts[:, 0], pts[:, 1], color=color, s=14)
        x = np.log(pts[:, 0])
        curve = np.polyval(np.polyfit(x, pts[:, 1], 2), np.linspace(x.min(), x.max(), 100))
        ax.plot(np.exp(np.linspace(x.min(), x.max(), 100)), curve, color=color,
                label=f"C = {C:.0e} FLOPs")
        ax.plot([n_opt], [loss_opt], marker="*", color="black", markersize=10)
    ax.set_xscale("log")
    ax.set_xlabel("parameters N")
    ax.set_ylabel("final loss")
    ax.set_title("isoFLOP profiles: a parabola in log N per budget (stars: vertices)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(HERE / "isoflop.png", dpi=120)


def plot_frontier(minima):
    C = np.geomspace(1e18, 1e26, 50)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for p, name, style in [(CHINCHILLA, "Chinchilla Approach 3 law", "-"),
                           (EPOCH, "Epoch AI refit", "--")]:
        ax.plot(C, compute_optimal(C, p)[0], style, label=f"compute_optimal, {name}")
    cs, ns = np.array([(c, n) for c, n, _ in minima]).T
    k, a = fit_power_law(cs, ns)
    ax.plot(cs, ns, "k*", markersize=9, label="isoFLOP vertices (synthetic sweep)")
    ax.plot(C, k * C**a, "k:", label=f"power law through vertices: N ~ C^{a:.3f}")
    for label, N, D, offset in [("GPT-3 (175B, 300B tokens)", 175e9, 300e9, (-165, 6)),
                                ("Chinchilla (70B, 1.4T tokens)", 70e9, 1.4e12, (8, -14))]:
        ax.plot([6 * N * D], [N], "o", markersize=7)
        ax.annotate(label, (6 * N * D, N), textcoords="offset points", xytext=offset)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("training compute C = 6ND (FLOPs)")
    ax.set_ylabel("compute-optimal parameters N_opt")
    ax.set_title("The compute-optimal frontier")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(HERE / "frontier.png", dpi=120)


def plot_inference():
    d_inf = np.geomspace(1e9, 1e15, 40)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for target in [2.0, 2.2]:
        N = [inference_optimal(target, d, CHINCHILLA)[0] for d in d_inf]
        ax.plot(d_inf, N, label=f"loss target {target}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("lifetime inference tokens D_inf")
    ax.set_ylabel("lifetime-optimal parameters N")
    ax.set_title("Serving more tokens: train a smaller model for longer (Chinchilla law)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(HERE / "inference.png", dpi=120)


def main() -> None:
    runs = synthetic_sweep(np.random.default_rng(0))
    minima = isoflop_minima(runs)
    plot_isoflop(runs, minima)
    plot_frontier(minima)
    plot_inference()
    print("wrote", ", ".join(f.name for f in sorted(HERE.glob("*.png"))))


if __name__ == "__main__":
    main()
