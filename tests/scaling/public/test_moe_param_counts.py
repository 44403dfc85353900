"""Task 7: counting an MoE's parameters. moe_param_counts on Mixtral 8x7B (46.7B total, 12.9B
active), Llama 2 7B (6.74B), random decoders, and the configurations it must refuse."""

from common import COUNT_FIELDS, LLAMA2_7B, MIXTRAL_8X7B, random_decoder, record_counts

from autograder.harness import graded
from scaling import moe_param_counts


def published_cases(rng):
    """The two published models, and Mixtral's shape with another vocabulary, expert count
    and top-k (drawn: the graded twin of the worked numbers)."""
    mixtral = dict(zip(COUNT_FIELDS, MIXTRAL_8X7B))
    return {"mixtral_8x7b": mixtral, "llama2_7b": dict(zip(COUNT_FIELDS, LLAMA2_7B)),
            "mixtral_variant": {**mixtral, "vocab_size": int(rng.integers(30_000, 160_000)),
                                "num_experts": int(rng.integers(4, 17)),
                                "top_k": int(rng.integers(1, 4))}}


@graded(points=2, cases=published_cases)
def test_published_models(rec, cases):
    # Mixtral 8x7B: 46,702,792,704 total and 12,879,925,248 active; Llama 2 7B: 6,738,415,616
    for name in ("mixtral_8x7b", "llama2_7b", "mixtral_variant"):
        record_counts(rec, name, moe_param_counts(**cases[name]))
    dense = {k: v for k, v in cases["llama2_7b"].items() if k not in ("num_experts", "top_k")}
    record_counts(rec, "llama2_7b with the defaults", moe_param_counts(**dense))


def random_cases(rng):
    return [random_decoder(rng) for _ in range(12)]


@graded(points=1, cases=random_cases)
def test_random_decoders(rec, cases):
    for i, c in enumerate(cases):
        record_counts(rec, f"decoder[{i}]", moe_param_counts(**c))


def invalid_cases(rng):
    base = random_decoder(rng)
    base.update(num_experts=8, top_k=2, n_heads=8, n_kv_heads=2, d_model=8 * 64)
    return {"base": base, "zero": str(rng.choice(COUNT_FIELDS))}


@graded(points=1, cases=invalid_cases)
def test_invalid_configurations(rec, cases):
    base, zero = cases["base"], cases["zero"]
    rec.raises("top_k > num_experts", moe_param_counts, **{**base, "top_k": 9})
    rec.raises("n_heads not divisible by n_kv_heads", moe_param_counts,
               **{**base, "n_kv_heads": 3})
    rec.raises("a size of 0", moe_param_counts, **{**base, zero: 0})
    rec.raises("a negative size", moe_param_counts, **{**base, "d_ff": -base["d_ff"]})
    record_counts(rec, "the valid base", moe_param_counts(**base))
