"""Regenerate the numbers of the dedup handout (README.md) from the reference solution.

    .venv/bin/python assignments/04_dedup/make_tables.py            # rewrite the generated blocks
    .venv/bin/python assignments/04_dedup/make_tables.py --check    # exit 1 if the handout is stale

Blocks (see assignments/handout_blocks.py):
- dedup-minhash-error: the MinHash standard error sqrt(J (1 - J) / num_perm) at J = 0.5;
- dedup-s-curve: `lsh_params(0.8, 128)` and `candidate_probability` at a few similarities;
- dedup-datatrove: threshold and P[candidate | 0.8] of datatrove's 14 bands x 8 rows;
- dedup-licenses: the worked example on real near-duplicates (the GNU license texts in
  assignments/04_dedup/data/licenses, see PROVENANCE.md there): exact Jaccard of every version
  pair, the reference MinHash estimate, the candidate probability under lsh_params(0.8, 128),
  whether the LSH index really pairs them, and the clusters `near_duplicate_clusters` returns;
  plus a re-cased, re-wrapped copy (Jaccard 1 after normalization);
- dedup-bloom: optimal bits per item and k for p = 1 % and 1e-6, the k = 1 rate, and the
  per-document rate of a 200-n-gram document (formulas of the handout, evaluated here).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "solutions"))
sys.path.insert(0, str(HERE.parent))

from handout_blocks import main

from dedup import (
    LSHIndex,
    MinHasher,
    candidate_probability,
    estimate_jaccard,
    jaccard,
    lsh_params,
    near_duplicate_clusters,
    shingles,
)

THRESHOLD, NUM_PERM = 0.8, 128


def minhash_error() -> str:
    return (f"about {math.sqrt(0.5 * 0.5 / NUM_PERM):.3f} at J = 0.5 with {NUM_PERM} "
            f"permutations.")


def s_curve() -> str:
    b, r = lsh_params(THRESHOLD, NUM_PERM)

    def p(s: float) -> float:
        return float(candidate_probability(s, b, r))

    return (f"For t = {THRESHOLD} and {NUM_PERM} permutations it picks b = {b}, r = {r}: a pair at "
            f"J = 0.8 is a candidate with probability {p(0.8):.2f}, at 0.9 with {p(0.9):.2f}, at "
            f"0.95 with {p(0.95):.3f}, and at 0.5 with {p(0.5):.2g}.")


def datatrove() -> str:
    b, r = 14, 8
    return (f"whose docstring computes the threshold (1/{b})^(1/{r}) ≈ {(1 / b) ** (1 / r):.2f} "
            f"and P[candidate | 0.8] = {float(candidate_probability(0.8, b, r)):.3f}.")


LICENSES = HERE / "data" / "licenses"
LICENSE_NAMES = ("GPL-1", "GPL-2", "GPL-3", "LGPL-2", "LGPL-2.1", "LGPL-3", "GFDL-1.2", "GFDL-1.3")
LICENSE_PAIRS = (("GFDL-1.2", "GFDL-1.3"), ("LGPL-2", "LGPL-2.1"), ("GPL-1", "GPL-2"),
                 ("GPL-2", "LGPL-2"), ("GPL-2", "GPL-3"), ("LGPL-2.1", "LGPL-3"))


def rewrapped(text: str) -> str:
    """The same words, upper-cased and re-wrapped at 50 columns with tabs: a surface variant."""
    words, lines, line = text.upper().split(), [], ""
    for w in words:
        if len(line) + len(w) > 50:
            lines.append(line)
            line = ""
        line = f"{line}\t{w}" if line else w
    return "\n".join([*lines, line])


def probability(s: float, b: int, r: int) -> str:
    """1 − (1 − s^r)^b (computed without cancellation) printed: 3 decimals, or 2 digits in
    scientific notation below 1e-3."""
    p = 1.0 if s >= 1 else -math.expm1(b * math.log1p(-(s**r)))
    return f"{p:.3f}" if p >= 1e-3 else f"{p:.1e}".replace("e-0", "e-")


def licenses() -> str:
    docs = {name: (LICENSES / f"{name}.txt").read_text(encoding="utf-8") for name in LICENSE_NAMES}
    docs["GPL-3 re-cased and re-wrapped"] = rewrapped(docs["GPL-3"])
    names = list(docs)
    sh = {name: shingles(text) for name, text in docs.items()}
    hasher, (b, r) = MinHasher(NUM_PERM, seed=1), lsh_params(THRESHOLD, NUM_PERM)
    sig = {name: hasher.signature(sh[name]) for name in names}
    index = LSHIndex(b, r)
    for name in names:
        index.insert(name, sig[name])
    lines = [f"| pair | shingles | exact J | MinHash estimate | P[candidate] (b = {b}, r = {r}) "
             "| candidates? |", "|---|---|---|---|---|---|"]
    for x, y in [*LICENSE_PAIRS, ("GPL-3", "GPL-3 re-cased and re-wrapped")]:
        j = jaccard(sh[x], sh[y])
        lines.append(f"| {x} vs {y} | {len(sh[x]):,} / {len(sh[y]):,} | {j:.3f} | "
                     f"{estimate_jaccard(sig[x], sig[y]):.3f} | "
                     f"{probability(j, b, r)} | "
                     f"{'yes' if y in index.query(sig[x]) else 'no'} |")
    clusters = near_duplicate_clusters([docs[n] for n in names], threshold=THRESHOLD,
                                       num_perm=NUM_PERM, n=5, seed=1)
    groups = sorted([names[i] for i in sorted(c)] for c in clusters if len(c) > 1)
    alone = len(names) - sum(len(g) for g in groups)
    lines += ["", f"`near_duplicate_clusters` at threshold {THRESHOLD} groups "
              + " and ".join("{" + ", ".join(g) + "}" for g in groups)
              + f", and leaves the other {alone} texts alone."]
    return "\n".join(lines)


def bloom() -> str:
    def bits(p: float) -> float:
        return -math.log(p) / math.log(2) ** 2

    def k(p: float) -> int:
        return round(bits(p) * math.log(2))

    return (f"m = −n ln p / (ln 2)² bits: {bits(0.01):.2f} bits per item and k = {k(0.01)} at "
            f"p = 1%, {bits(1e-6):.1f} bits and k = {k(1e-6)} at p = 10⁻⁶. With k = 1 and the same "
            f"m the rate at p = 1% would be 1 − e^(−1/{bits(0.01):.2f}) ≈ "
            f"{100 * (1 - math.exp(-1 / bits(0.01))):.1f}%.")


def per_document() -> str:
    return f"1 − 0.99²⁰⁰ ≈ {100 * (1 - 0.99**200):.0f}%."


def generate(timings: bool) -> dict[str, str]:
    return {"dedup-minhash-error": minhash_error(), "dedup-s-curve": s_curve(),
            "dedup-datatrove": datatrove(), "dedup-bloom": bloom(),
            "dedup-per-document": per_document(), "dedup-licenses": licenses()}


if __name__ == "__main__":
    sys.exit(main(HERE / "README.md", generate))
