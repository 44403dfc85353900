"""Regenerate the numbers of the dedup handout (README.md) from the reference solution.

    .venv/bin/python assignments/04_dedup/make_tables.py            # rewrite the generated blocks
    .venv/bin/python assignments/04_dedup/make_tables.py --check    # exit 1 if the handout is stale

Blocks (see assignments/handout_blocks.py):
- dedup-minhash-error: the MinHash standard error sqrt(J (1 - J) / num_perm) at J = 0.5;
- dedup-s-curve: `lsh_params(0.8, 128)` and `candidate_probability` at a few similarities;
- dedup-datatrove: threshold and P[candidate | 0.8] of datatrove's 14 bands x 8 rows;
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

from dedup import candidate_probability, lsh_params

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
            "dedup-per-document": per_document()}


if __name__ == "__main__":
    sys.exit(main(HERE / "README.md", generate))
