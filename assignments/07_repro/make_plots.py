"""Draw the handout's seed-variance figure from the reference solution, and print its numbers.

    .venv/bin/python assignments/07_repro/make_plots.py   # writes seed_variance.png next to this file

A small MLP is trained on one fixed synthetic regression set (the data never changes; only the
seed does: initialization, mini-batch order, dropout) for 10 seeds, through seed_study. Left:
each seed's final training loss, the mean and its 95% t-interval (and, dashed, the too-narrow
interval the normal 1.96 would give). Right: the 10 seeds split in two groups of 5, as in
Henderson et al. (2018): each group's mean and t-interval, and Welch's p-value between them.
About 10 s of CPU time.
"""

import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "solutions"))

from repro import seed_study, welch_t_test

SEEDS = list(range(10))
STEPS, BATCH = 300, 16


def dataset() -> tuple[torch.Tensor, torch.Tensor]:
    """256 points of a fixed noisy non-linear target (its own generator: the same for every seed)."""
    g = torch.Generator().manual_seed(12345)
    x = torch.randn(256, 8, generator=g)
    y = torch.sin(2 * x[:, :1]) + x[:, 1:2] * x[:, 2:3] + 0.1 * torch.randn(256, 1, generator=g)
    return x, y


def train(seed: int) -> float:
    """Final full-batch MSE of a 2-layer MLP after STEPS SGD steps (seeded by seed_study)."""
    x, y = dataset()
    torch.set_num_threads(1)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Tanh(), torch.nn.Dropout(0.1),
                                torch.nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(STEPS):
        batch = torch.randint(0, len(x), (BATCH,))
        loss = torch.nn.functional.mse_loss(model(x[batch]), y[batch])
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        return float(torch.nn.functional.mse_loss(model(x), y))


def main() -> None:
    study = seed_study(train, SEEDS)
    a, b = study.values[:5], study.values[5:]
    group_a, group_b = seed_study(lambda s: a[s], range(5)), seed_study(lambda s: b[s - 5], range(5, 10))
    t, p = welch_t_test(a, b)
    normal_half = 1.96 * study.std / math.sqrt(len(SEEDS))

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    left.scatter(SEEDS, study.values, color="black", zorder=3, label="final loss of one seed")
    left.axhline(study.mean, color="tab:blue", label=f"mean {study.mean:.4f}")
    left.axhspan(*study.ci95, color="tab:blue", alpha=0.2, label="95% t-interval (t = 2.262, 9 df)")
    for sign in (-1, 1):
        left.axhline(study.mean + sign * normal_half, color="tab:red", ls="--", lw=1,
                     label="1.96 x standard error (too narrow)" if sign < 0 else None)
    left.set(xlabel="seed", ylabel="final training MSE", xticks=SEEDS,
             title="Same model, same data, 10 seeds")
    left.legend(fontsize=8)

    for k, (name, g, vals, color) in enumerate((("seeds 0-4", group_a, a, "tab:green"),
                                                 ("seeds 5-9", group_b, b, "tab:purple"))):
        right.scatter([k] * len(vals), vals, color=color, alpha=0.7)
        right.errorbar([k + 0.15], [g.mean], yerr=[[g.mean - g.ci95[0]], [g.ci95[1] - g.mean]],
                       fmt="o", color=color, capsize=6, label=f"{name}: mean {g.mean:.4f}")
    right.set(xticks=[0, 1], xticklabels=["seeds 0-4", "seeds 5-9"], xlim=(-0.6, 1.8),
              ylabel="final training MSE", title=f"Two groups of 5 seeds: Welch t = {t:.2f}, p = {p:.3f}")
    right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(HERE / "seed_variance.png", dpi=110)

    print(f"values: {[round(v, 5) for v in study.values]}")
    print(f"mean {study.mean:.5f}, std {study.std:.5f}, ci95 ({study.ci95[0]:.5f}, {study.ci95[1]:.5f}), "
          f"relative half-width {(study.ci95[1] - study.mean) / study.mean:.1%}")
    print(f"seeds 0-4 mean {group_a.mean:.5f}, seeds 5-9 mean {group_b.mean:.5f}: Welch t = {t:.3f}, p = {p:.4f}")
    print(f"max/min final loss over the 10 seeds: {max(study.values) / min(study.values):.3f}")


if __name__ == "__main__":
    main()
