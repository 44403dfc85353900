"""Draw the handout's Jacobian figure from the reference solution.

    .venv/bin/python assignments/02_ad_modes/make_plots.py   # writes jacobians.png next to this file

Left: softmax_jacobian(x) = diag(s) − s sᵀ. Middle: layernorm_jacobian(x) =
(1/σ)(I − 11ᵀ/n − x̂x̂ᵀ/n). Right: σ·J_LayerNorm − I, the low-rank part (rank 2) once the scaled
identity is removed. Same x (n = 16, sorted so the structure is easy to see) for all three.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "solutions"))

from ad_modes import layernorm_jacobian, softmax_jacobian
from ad_modes.layers import standardize


def main() -> None:
    n = 16
    x = np.sort(np.random.default_rng(0).normal(size=n) * 1.5)
    js, jl = softmax_jacobian(x), layernorm_jacobian(x)
    _, sigma = standardize(x, 1e-5)
    low_rank = sigma * jl - np.eye(n)
    panels = [(js, "softmax: diag(s) − s sᵀ"),
              (jl, "LayerNorm: (1/σ)(I − 11ᵀ/n − x̂x̂ᵀ/n)"),
              (low_rank, f"LayerNorm: σJ − I (rank {np.linalg.matrix_rank(low_rank, tol=1e-9)})")]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.3))
    for ax, (m, title) in zip(axes, panels):
        lim = np.abs(m).max()
        im = ax.imshow(m, cmap="RdBu_r", vmin=-lim, vmax=lim)
        ax.set(title=title, xlabel="j (input)", ylabel="i (output)")
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    fig.suptitle(f"J[i, j] = ∂y_i/∂x_j at one sorted x, n = {n}; every row sums to 0 "
                 f"(J·1 = 0: adding a constant to x changes neither output)")
    fig.tight_layout()
    fig.savefig(HERE / "jacobians.png", dpi=110)


if __name__ == "__main__":
    main()
