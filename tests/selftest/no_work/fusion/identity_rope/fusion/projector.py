"""LLaVA's projector: vision-encoder features mapped into the language model's embedding space."""

import torch
from torch import nn

KINDS = ("linear", "mlp2x_gelu")


class LlavaProjector(nn.Module):
    """LlavaProjector(vision_dim, text_dim, kind="linear" | "mlp2x_gelu").

    kind="linear" (LLaVA): one nn.Linear(vision_dim, text_dim), with bias.
    kind="mlp2x_gelu" (LLaVA-1.5): nn.Linear(vision_dim, text_dim) → nn.GELU() (exact, erf) →
    nn.Linear(text_dim, text_dim), both with bias.
    Any other kind raises ValueError. forward(x): (..., vision_dim) → (..., text_dim).
    """

    def __init__(self, vision_dim: int, text_dim: int, kind: str = "linear"):
        super().__init__()
        ### BEGIN SOLUTION
        if kind == "linear":
            self.net = nn.Linear(vision_dim, text_dim)
        elif kind == "mlp2x_gelu":
            self.net = nn.Sequential(nn.Linear(vision_dim, text_dim), nn.GELU(),
                                     nn.Linear(text_dim, text_dim))
        else:
            raise ValueError(f"unknown projector kind {kind!r}; expected one of {KINDS}")
        ### END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        return self.net(x)
        ### END SOLUTION
