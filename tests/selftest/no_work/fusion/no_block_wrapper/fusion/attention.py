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
        ### BEGIN SOLUTION
        def split_heads(t):  # (B, L, dim) → (B, heads, L, dim / heads)
            b, length, dim = t.shape
            return t.view(b, length, self.heads, dim // self.heads).transpose(1, 2)

        q = split_heads(self.to_q(x))
        k, v = (split_heads(t) for t in self.to_kv(context).chunk(2, dim=-1))
        out = F.scaled_dot_product_attention(q, k, v)
        b, _, n, _ = out.shape
        return self.to_out(out.transpose(1, 2).reshape(b, n, -1))
        ### END SOLUTION


def feed_forward(dim: int, mult: int = 4) -> nn.Sequential:
    """Pre-norm MLP: LayerNorm → Linear(dim, mult·dim) → GELU → Linear(mult·dim, dim)."""
    return nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, mult * dim), nn.GELU(),
                         nn.Linear(mult * dim, dim))
