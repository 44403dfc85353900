"""Shared by the scaling public and hidden tests: published laws, random laws, synthetic sweeps
(Approach 3 runs and isoFLOP profiles) and the tolerances of a scaling-law fit."""

import itertools

import numpy as np

from scaling import ScalingParams

# Published fits, as [E, A, B, alpha, beta].
CHINCHILLA = [1.69, 406.4, 410.7, 0.34, 0.28]  # Hoffmann et al. (2022), Approach 3
EPOCH = [1.82, 482.0, 2085.0, 0.348, 0.366]  # Besiroglu et al. (2024), rounded


def params(v):
    """[E, A, B, alpha, beta] -> ScalingParams."""
    return ScalingParams(E=v[0], A=v[1], B=v[2], alpha=v[3], beta=v[4])


def random_law(rng, E=(1.5, 2.0), A=(200, 600), B=(200, 2500), alpha=(0.25, 0.4), beta=(0.25, 0.4)):
    """[E, A, B, alpha, beta], each uniform in its range (drawn in that order)."""
    return [float(rng.uniform(*r)) for r in (E, A, B, alpha, beta)]


# 35 of the Chinchilla grid's 4,500 starts, as (a, b, e, alpha, beta).
STARTS = list(itertools.product([0.0, 10.0, 20.0], [0.0, 10.0, 20.0], [-1.0, 0.0, 1.0],
                                [0.0, 1.0, 2.0], [0.0, 1.0, 2.0]))[::7]


def sweep(rng, n=120, noise=1e-3, interaction=0.0):
    """n runs, N log-uniform in [1e6, 1e10], D in [1e7, 1e12], loss from known parameters, times
    exp(noise * normal); `interaction` adds a term interaction * (N*D)^-0.2 that the Chinchilla
    form cannot represent."""
    E, A, B, alpha, beta = random_law(rng, E=(1.6, 1.9), A=(300, 500), B=(300, 500),
                                      alpha=(0.3, 0.38), beta=(0.26, 0.34))
    N = np.exp(rng.uniform(np.log(1e6), np.log(1e10), n))
    D = np.exp(rng.uniform(np.log(1e7), np.log(1e12), n))
    loss = E + A / N**alpha + B / D**beta + interaction * (N * D) ** -0.2
    return {"N": N, "D": D, "loss": loss * np.exp(noise * rng.normal(size=n))}


def record_fit(rec, tag, fit):
    """A fit against the reference's: alpha, beta within 1e-3; E within 0.1 %; A and B within
    2 % (they are weakly determined)."""
    rec.close(f"{tag}.alpha", float(fit.alpha), atol=1e-3)
    rec.close(f"{tag}.beta", float(fit.beta), atol=1e-3)
    rec.close(f"{tag}.E", float(fit.E), rtol=1e-3)
    rec.close(f"{tag}.A", float(fit.A), rtol=0.02)
    rec.close(f"{tag}.B", float(fit.B), rtol=0.02)


def isoflop_sweep(rng, budgets, sizes_per_budget=9, noise=1e-3, spread=0.5, span=16, reseeded=0):
    """Runs [C, N, loss] of a random Chinchilla law at each budget, shuffled, with multiplicative
    noise on the loss. Per budget: sizes_per_budget sizes (None: 4 to 9, drawn) geometrically
    spaced over [centre / span, centre * span], where the centre is the law's optimum times
    exp(uniform(-spread, spread)); the first `reseeded` sizes are run twice (another seed)."""
    E, A, B, alpha, beta = random_law(rng, E=(1.6, 1.9), A=(300, 500), B=(300, 2000),
                                      alpha=(0.3, 0.38), beta=(0.26, 0.38))
    G = (alpha * A / (beta * B)) ** (1 / (alpha + beta))
    runs = []
    for C in budgets:
        centre = G * (C / 6) ** (beta / (alpha + beta)) * np.exp(rng.uniform(-spread, spread))
        n = int(rng.integers(4, 10)) if sizes_per_budget is None else sizes_per_budget
        sizes = centre * np.geomspace(1 / span, span, n)
        sizes = np.concatenate([sizes, sizes[:reseeded]])
        for N in sizes:
            D = C / (6 * N)
            loss = (E + A / N**alpha + B / D**beta) * np.exp(noise * rng.normal())
            runs.append([float(C), float(N), float(loss)])
    order = rng.permutation(len(runs))
    return [runs[j] for j in order]


def mixed_isoflop_sweep(rng, budgets, off_mix_budgets, sizes_per_budget=7, noise=0.0):
    """An isoFLOP sweep as run dicts {"id", "C", "N", "loss", "tokenizer", "data_mix"} in which the
    runs at the budgets listed in off_mix_budgets were trained on another data mix: their losses
    follow a second law whose data term is cheaper (0.6 B: each token teaches more, so its optimum
    sits at larger N), as a
    code-heavy or filtered mix can. Returns (runs, main_law) with main_law = [E, A, B, alpha, beta]."""
    main = random_law(rng, E=(1.6, 1.9), A=(300, 500), B=(600, 2000), alpha=(0.3, 0.38),
                      beta=(0.26, 0.34))
    other = [main[0], main[1], main[2] * 0.6, main[3], main[4]]
    runs = []
    for C in budgets:
        E, A, B, alpha, beta = other if C in off_mix_budgets else main
        G = (alpha * A / (beta * B)) ** (1 / (alpha + beta))
        centre = G * (C / 6) ** (beta / (alpha + beta))
        for N in centre * np.geomspace(1 / 8, 8, sizes_per_budget):
            D = C / (6 * N)
            loss = (E + A / N**alpha + B / D**beta) * np.exp(noise * rng.normal())
            runs.append({"C": float(C), "N": float(N), "loss": float(loss), "tokenizer": "bpe-32k",
                         "data_mix": "code-heavy" if C in off_mix_budgets else "web-v2"})
    runs = [runs[j] for j in rng.permutation(len(runs))]
    for i, run in enumerate(runs):
        run["id"] = i
    return runs, main


# ---------------------------------------------------------------- Task 7: moe_param_counts
# Published configurations (d_model, n_layers, d_ff, vocab_size, n_heads, n_kv_heads,
# num_experts, top_k), from each model's config.json.
MIXTRAL_8X7B = [4096, 32, 14336, 32000, 32, 8, 8, 2]  # 46.7B / 12.9B (Mistral AI, "Mixtral of experts", 2023)
LLAMA2_7B = [4096, 32, 11008, 32000, 32, 32, 1, 1]  # 6.74B (its config.json; Touvron et al. 2023)
COUNT_FIELDS = ("d_model", "n_layers", "d_ff", "vocab_size", "n_heads", "n_kv_heads",
                "num_experts", "top_k")


def random_decoder(rng) -> dict:
    """A decoder configuration as keyword arguments: d_model a multiple of n_heads, n_kv_heads
    dividing n_heads, dense or MoE, tied or not (drawn in that order)."""
    n_heads = int(rng.choice([1, 4, 8, 12, 16, 32, 40]))
    head_dim = int(rng.choice([16, 32, 64, 128]))
    n_kv_heads = int(rng.choice([k for k in range(1, n_heads + 1) if n_heads % k == 0]))
    num_experts = int(rng.choice([1, 1, 4, 8, 16, 64]))
    return {"d_model": n_heads * head_dim, "n_layers": int(rng.integers(1, 81)),
            "d_ff": int(rng.integers(1, 300)) * 64, "vocab_size": int(rng.integers(100, 160_000)),
            "n_heads": n_heads, "n_kv_heads": n_kv_heads, "num_experts": num_experts,
            "top_k": int(rng.integers(1, num_experts + 1)), "tied_embeddings": bool(rng.random() < 0.3)}


def record_counts(rec, name: str, counts) -> None:
    """Record (total, active) as ints, and whether both are integers (SPEC 5.5: ints)."""
    import numbers
    total, active = counts
    rec.exact(f"{name} (total, active)", [int(total), int(active)])
    rec.exact(f"{name} both integers", all(isinstance(x, numbers.Integral) and not isinstance(x, bool)
                                          for x in (total, active)))
