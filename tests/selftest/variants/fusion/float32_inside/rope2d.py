"""rope_2d with float32 angle tables (cast to x's dtype at the end) and the interleaved pairing
(2i, 2i + 1) of the original RoFormer / LLaMA code, rows on the even-numbered half of the
planes and columns on the odd-numbered half: layouts the contract leaves free."""

import torch


def rope_2d(x, grid_h, grid_w, base=10000.0):
    d = x.shape[-1]
    theta = (base ** (-torch.arange(0, d // 2, 2, dtype=torch.float32) / (d // 2))).float()  # (D/4,)
    p = torch.arange(grid_h * grid_w)
    rows, cols = (p // grid_w).float(), (p % grid_w).float()
    angles = torch.stack([rows[:, None] * theta, cols[:, None] * theta], dim=-1).flatten(-2)  # (HW, D/2)
    cos, sin = angles.cos(), angles.sin()
    xf = x.float()
    even, odd = xf[..., 0::2], xf[..., 1::2]
    out = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)
    return out.to(x.dtype)
