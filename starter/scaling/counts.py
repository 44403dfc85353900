"""How many parameters a Llama/Mixtral-style decoder has, and how many a token uses."""

from __future__ import annotations


def moe_param_counts(d_model: int, n_layers: int, d_ff: int, vocab_size: int, n_heads: int,
                     n_kv_heads: int, num_experts: int = 1, top_k: int = 1,
                     tied_embeddings: bool = False) -> tuple[int, int]:
    """(total, active): the weight count of a Llama/Mixtral-style decoder, as ints.

    Per layer: attention q and o (d_model * d_model each), k and v (d_model * d_model *
    n_kv_heads / n_heads each: grouped-query attention shares each key/value head among
    n_heads / n_kv_heads query heads); num_experts SwiGLU experts of 3 * d_model * d_ff each
    (gate, up and down projections); a router of d_model * num_experts when num_experts > 1;
    two RMSNorm weights (d_model each). Then a final RMSNorm (d_model), the embedding
    (vocab_size * d_model) and an output head of the same size unless tied_embeddings. No biases.

    `active` counts what one token uses: top_k experts per layer, and everything else (the
    router included). A dense model is num_experts = top_k = 1, where total == active.

    Raises ValueError for a non-positive size (any of the ints above), top_k > num_experts,
    or n_heads not divisible by n_kv_heads.
    """
    raise NotImplementedError
