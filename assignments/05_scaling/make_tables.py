"""Regenerate the numbers of the scaling handout (README.md) from the reference solution.

    .venv/bin/python assignments/05_scaling/make_tables.py            # rewrite the generated blocks
    .venv/bin/python assignments/05_scaling/make_tables.py --check    # exit 1 if the handout is stale

Every number is `solutions/scaling` applied to published inputs: Chinchilla's Approach-3 law
(Hoffmann et al., 2022, App. D.2, eq. 10), the Epoch AI refit (Besiroglu et al., 2024), GPT-3's
175B parameters and 300B tokens (Brown et al., 2020, §2.2) and Chinchilla's 70B and 1.4T (Hoffmann
et al., 2022, §4). Blocks (see assignments/handout_blocks.py): scaling-exponents,
scaling-gpt3-table, scaling-gpt3-summary, scaling-inference-table, scaling-mixed-sweep (an
isoFLOP sweep of Chinchilla's law whose two smallest budgets used a mix with 0.6 B: Task 6),
bench-scaling-fit (the fit's timings, from the scaling rows of bench/results.json, the committed
`make bench`; compared exactly, so the handout changes whenever a new `make bench` is committed).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "solutions"))
sys.path.insert(0, str(HERE.parent))

import numpy as np
from handout_blocks import main

from scaling import (
    ScalingParams,
    chinchilla_loss,
    compute_optimal,
    fit_power_law,
    inference_optimal,
    invalid_sweep_runs,
    isoflop_minima,
)

CHINCHILLA = ScalingParams(E=1.69, A=406.4, B=410.7, alpha=0.34, beta=0.28)
EPOCH = ScalingParams(E=1.82, A=482.0, B=2085.0, alpha=0.348, beta=0.366)
GPT3_N, GPT3_D = 175e9, 300e9
CHINCHILLA_N, CHINCHILLA_D = 70e9, 1.4e12


def params(x: float) -> str:
    """1.5e10 -> '15.0B'."""
    return f"{x / 1e9:.1f}B"


def tokens(x: float) -> str:
    """9.9e11 -> '0.99T', 1.47e13 -> '14.7T'."""
    return f"{x / 1e12:.2f}T" if x < 1e13 else f"{x / 1e12:.1f}T"


def exponents() -> str:
    p = CHINCHILLA
    a, b = p.beta / (p.alpha + p.beta), p.alpha / (p.alpha + p.beta)
    return f"With the Approach-3 values, N_opt ∝ C^{a:.3f} and D_opt ∝ C^{b:.3f};"


def gpt3_table() -> str:
    C = 6 * GPT3_N * GPT3_D
    lines = ["| law | N_opt | D_opt | tokens / param | L(GPT-3) | L(N_opt, D_opt) | "
             "compute-optimal C for GPT-3's loss |", "|---|---|---|---|---|---|---|"]
    for name, p in [("Hoffmann et al. Approach 3", CHINCHILLA), ("Epoch AI refit", EPOCH)]:
        n, d = (float(x) for x in compute_optimal(C, p))
        loss = float(chinchilla_loss(GPT3_N, GPT3_D, p))
        n_same, d_same = inference_optimal(loss, 0.0, p)
        c_same = 6 * n_same * d_same
        lines.append(f"| {name} | {params(n)} | {tokens(d)} | {d / n:.0f} | {loss:.3f} | "
                     f"{float(chinchilla_loss(n, d, p)):.3f} | {c_same:.3g} "
                     f"({100 * c_same / C:.0f} % of GPT-3's) |")
    return "\n".join(lines)


def gpt3_summary() -> str:
    C = 6 * GPT3_N * GPT3_D
    smaller, reach = [], []
    for p in (CHINCHILLA, EPOCH):
        n, d = (float(x) for x in compute_optimal(C, p))
        smaller.append(GPT3_N / n)
        reach.append(inference_optimal(float(chinchilla_loss(GPT3_N, GPT3_D, p)), 0.0, p))
    lo, hi = min(smaller), max(smaller)
    (n_h, d_h), (n_e, d_e) = reach
    C2 = 6 * CHINCHILLA_N * CHINCHILLA_D
    (n_ce, d_ce), (n_ch, d_ch) = compute_optimal(C2, EPOCH), compute_optimal(C2, CHINCHILLA)
    return (f"Either way, GPT-3's budget was best spent on a model {lo:.0f}–{hi:.0f}× smaller "
            f"trained on {lo:.0f}–{hi:.0f}× more tokens, and GPT-3's loss was reachable with "
            f"{100 * 6 * n_h * d_h / C:.0f} % or {100 * 6 * n_e * d_e / C:.0f} % of its compute "
            f"(by a {n_h / 1e9:.0f}B model on {d_h / 1e12:.2g}T tokens, or a {n_e / 1e9:.0f}B "
            f"model on {d_e / 1e12:.2g}T, under the two laws). At Chinchilla's own budget "
            f"(6 · 70B · 1.4T = {C2:.3g}) the Epoch refit gives N_opt = {float(n_ce) / 1e9:.0f}B "
            f"and D_opt = {tokens(float(d_ce))}, close to the Chinchilla model itself, while the "
            f"rounded Approach-3 values give {float(n_ch) / 1e9:.0f}B and "
            f"{float(d_ch) / 1e12:.1f}T: the published fit disagrees with the paper's own choice.")


def inference_table() -> str:
    target = float(chinchilla_loss(GPT3_N, GPT3_D, CHINCHILLA))
    lines = [f"Approach-3 law and GPT-3's loss ({target:.3f}) as the target, your "
             "`inference_optimal` gives:", "",
             "| D_inf | N | D_train | training C | lifetime C |", "|---|---|---|---|---|"]
    for d_inf, label in [(0.0, "0"), (1e12, "1T"), (1e13, "10T"), (1e14, "100T")]:
        n, d = inference_optimal(target, d_inf, CHINCHILLA)
        lines.append(f"| {label} | {params(n)} | {tokens(d)} | "
                     f"{6 * n * d:.3g} | {6 * n * d + 2 * n * d_inf:.3g} |")
    return "\n".join(lines).replace("e+", "e")


def mixed_sweep() -> str:
    """Seven sizes per budget at 1e18 ... 1e20 FLOPs, on Chinchilla's law; the 1e18 and 3e18 runs
    on a mix whose data term is 0.6 B. N_opt at 1e24 FLOPs from every vertex and from the clean ones."""
    budgets, off_mix, target = [1e18, 3e18, 1e19, 3e19, 1e20], {1e18, 3e18}, 1e24
    other = ScalingParams(CHINCHILLA.E, CHINCHILLA.A, 0.6 * CHINCHILLA.B, CHINCHILLA.alpha, CHINCHILLA.beta)
    runs = []
    for C in budgets:
        law = other if C in off_mix else CHINCHILLA
        centre = float(compute_optimal(C, law)[0])
        for N in centre * np.geomspace(1 / 8, 8, 7):
            runs.append({"C": C, "N": float(N), "loss": float(chinchilla_loss(N, C / (6 * N), law)),
                         "data_mix": "code-heavy" if C in off_mix else "web-v2"})

    def n_opt(rs):
        C, N, _ = np.asarray(isoflop_minima([(r["C"], r["N"], r["loss"]) for r in rs]), float).T
        k, exponent = fit_power_law(C, N)
        return float(k) * target ** float(exponent), float(exponent)

    bad = invalid_sweep_runs(runs, ["data_mix"])
    clean = [r for r in runs if r not in bad]
    (n_all, a_all), (n_clean, a_clean) = n_opt(runs), n_opt(clean)
    true = float(compute_optimal(target, CHINCHILLA)[0])
    return (f"On Chinchilla's law, a sweep of 1e18 to 1e20 FLOPs whose two smallest budgets used a mix "
            f"with a 40 % cheaper data term fits N_opt ∝ C^{a_all:.2f} and predicts {params(n_all)} "
            f"parameters at 1e24 FLOPs; without the {len(bad)} off-mix runs it fits C^{a_clean:.2f} and "
            f"predicts {params(n_clean)}, where the law's optimum is {params(true)}: the mixed sweep is "
            f"off by {true / n_all:.1f}×")


def fit_timings() -> str:
    """The full-grid fit against scipy loops, from bench/results.json's scaling rows."""
    results = json.loads((HERE.parents[1] / "bench" / "results.json").read_text(encoding="utf-8"))
    rows = {r["peer_name"] + " | " + r["what"]: r for r in results["rows"]
            if r["group"] == "scaling" and r["ratio"] is not None}
    full = next((r for k, r in rows.items() if "full grid" in k), None)
    analytic = next((r for k, r in rows.items() if "analytic gradient" in k), None)
    if full is None or analytic is None:
        raise SystemExit("bench/results.json lacks the measured scaling rows: run `make bench`")
    every_10th = analytic["peer"]
    return (f"Measured by `make bench` ({results['date']}, {results['machine']}): one scipy "
            f"L-BFGS-B call per start with the analytic gradient takes {every_10th:.1f} CPU s for "
            f"every 10th start (450) on 245 runs, so about {10 * every_10th:.0f} CPU s for the "
            f"full grid; with finite-difference gradients about {full['peer']:.0f} CPU s (timed on "
            f"every 10th start, ×10); "
            f"the reference's lockstep L-BFGS fits the full grid in {full['ours']:.1f} CPU s.")


def generate(timings: bool) -> dict[str, str]:
    return {"scaling-exponents": exponents(), "scaling-gpt3-table": gpt3_table().replace("e+", "e"),
            "scaling-gpt3-summary": gpt3_summary().replace("e+", "e"),
            "scaling-inference-table": inference_table(), "scaling-mixed-sweep": mixed_sweep(),
            "bench-scaling-fit": fit_timings()}


if __name__ == "__main__":
    sys.exit(main(HERE / "README.md", generate))
