"""Draw the handout's LSH S-curve figure from the reference solution.

    .venv/bin/python assignments/04_dedup/make_plots.py     # writes s_curve.png next to this file

Left: candidate_probability(s, b, r) for several (b, r) with b * r <= 128, and the shaded
false-positive / false-negative areas that lsh_params(0.8, 128) minimizes; the real license-version
pairs of the handout's worked example (data/licenses, make_tables.LICENSE_PAIRS) at their exact
Jaccard on the chosen curve. Right: MinHash estimates
of planted pairs against their exact Jaccard, with the +-2 sqrt(J (1 - J) / k) band.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "solutions"))

from dedup import MinHasher, candidate_probability, estimate_jaccard, jaccard, lsh_params, shingles

sys.path.insert(0, str(HERE))
from make_tables import LICENSE_PAIRS, LICENSES


def main() -> None:
    s = np.linspace(0, 1, 501)
    threshold, num_perm = 0.8, 128
    b, r = lsh_params(threshold, num_perm)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.3))

    for bb, rr in [(32, 4), (16, 8), (4, 32), (128, 1)]:
        left.plot(s, candidate_probability(s, bb, rr), lw=1.2, alpha=0.7, label=f"b={bb}, r={rr}")
    p = candidate_probability(s, b, r)
    left.plot(s, p, color="black", lw=2.5, label=f"b={b}, r={r}: lsh_params({threshold}, {num_perm})")
    left.fill_between(s, 0, p, where=s <= threshold, color="tab:red", alpha=0.25,
                      label="false-positive area")
    left.fill_between(s, p, 1, where=s >= threshold, color="tab:blue", alpha=0.25,
                      label="false-negative area")
    left.axvline(threshold, color="gray", ls="--", lw=1)
    for x, y in LICENSE_PAIRS:
        sx, sy = (shingles((LICENSES / f"{n}.txt").read_text(encoding="utf-8")) for n in (x, y))
        jac = jaccard(sx, sy)
        prob = float(candidate_probability(jac, b, r))
        left.scatter([jac], [prob], color="black", s=14, zorder=3)
        if prob >= 0.01:
            left.annotate(f"{x} / {y}", (jac, prob), fontsize=6.5, xytext=(-4, 6),
                          textcoords="offset points", ha="right")
    left.annotate("other GNU license versions", (0.25, 0.0), fontsize=6.5, xytext=(0.25, 0.05),
                  ha="center")
    left.set(xlabel="Jaccard similarity s", ylabel="P[candidate] = 1 - (1 - s^r)^b",
             title="LSH banding: the S-curve", xlim=(0, 1), ylim=(0, 1.01))
    left.legend(fontsize=7.5, loc="upper left")

    rng = np.random.default_rng(0)
    for k, color in [(32, "tab:orange"), (256, "tab:green")]:
        hasher, exact, est = MinHasher(k, seed=1), [], []
        for jac in rng.uniform(0, 1, size=150):
            size = 200
            shared = round(2 * size * jac / (1 + jac))
            pool = [f"{rng.integers(1 << 62)}" for _ in range(2 * size - shared)]
            a, c = set(pool[:size]), set(pool[:shared] + pool[size:])
            exact.append(len(a & c) / len(a | c))
            est.append(estimate_jaccard(hasher.signature(a), hasher.signature(c)))
        right.scatter(exact, est, s=9, color=color, alpha=0.7, label=f"num_perm={k}")
        band = 2 * np.sqrt(s * (1 - s) / k)
        right.fill_between(s, s - band, s + band, color=color, alpha=0.12)
    right.plot(s, s, color="black", lw=1)
    right.set(xlabel="exact Jaccard J", ylabel="MinHash estimate",
              title="MinHash: unbiased, error ~ sqrt(J(1-J)/num_perm)", xlim=(0, 1), ylim=(0, 1))
    right.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    out = HERE / "s_curve.png"
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
