"""Task 7 (hidden): moe_param_counts on Mixtral 8x22B and Llama 3 8B, tied embeddings, more
random decoders, and the refusals on other configurations."""

from common import COUNT_FIELDS, random_decoder, record_counts

from autograder.harness import graded
from scaling import moe_param_counts

# From each model's config.json: Mixtral 8x22B (141B total, 39B active, Mistral AI's release
# notes); Llama 3 8B (8.03B, Llama 3 model card); a tied dense model shaped like Llama 3.2 1B.
MIXTRAL_8X22B = [6144, 56, 16384, 32768, 48, 8, 8, 2]
LLAMA3_8B = [4096, 32, 14336, 128256, 32, 8, 1, 1]
LLAMA32_1B = [2048, 16, 8192, 128256, 32, 8, 1, 1]


def published_cases(rng):
    return {"mixtral_8x22b": dict(zip(COUNT_FIELDS, MIXTRAL_8X22B)),
            "llama3_8b": dict(zip(COUNT_FIELDS, LLAMA3_8B)),
            "llama32_1b_tied": {**dict(zip(COUNT_FIELDS, LLAMA32_1B)), "tied_embeddings": True}}


@graded(points=1, cases=published_cases)
def test_published_models_hidden(rec, cases):
    for name in ("mixtral_8x22b", "llama3_8b", "llama32_1b_tied"):
        record_counts(rec, name, moe_param_counts(**cases[name]))


def random_cases(rng):
    return [random_decoder(rng) for _ in range(24)]


@graded(points=1, cases=random_cases)
def test_random_decoders_hidden(rec, cases):
    for i, c in enumerate(cases):
        record_counts(rec, f"decoder[{i}]", moe_param_counts(**c))
        rec.raises(f"decoder[{i}] with top_k = num_experts + 1", moe_param_counts,
                   **{**c, "top_k": c["num_experts"] + 1})
