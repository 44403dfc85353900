"""Multi-head attention of a query sequence over a key/value sequence (no positions, no mask),
and the feed-forward block, shared by the resampler and the gated cross-attention."""

import torch
import torch.nn.functional as F  # noqa: F401
from torch import nn


class MultiHeadAttention(nn.Module):
    """MultiHeadAttention(dim, heads): softmax(Q Kᵀ / √d_head) V in each of `heads` heads.

    forward(x, context): queries from x (B, N, dim), keys and values from context (B, M, dim);
    returns (B, N, dim). No positional information: permuting context's tokens leaves the
    output unchanged. Each head sees its own dim / heads slice of every token's projection.
    """

    def __init__(self, dim: int, heads: int):
        super().__init__()
        if dim % heads:
            raise ValueError(f"dim {dim} is not divisible by heads {heads}")
        self.heads = heads
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_kv = nn.Linear(dim, 2 * dim, bias=False)
        self.to_out = nn.Linear(dim, dim, bias=False)

    def forward(self, x: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


def feed_forward(dim: int, mult: int = 4) -> nn.Sequential:
    """Pre-norm MLP: LayerNorm → Linear(dim, mult·dim) → GELU → Linear(mult·dim, dim)."""
    return nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, mult * dim), nn.GELU(),
                         nn.Linear(mult * dim, dim))
