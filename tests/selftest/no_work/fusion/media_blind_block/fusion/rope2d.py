"""2D rotary position embedding for a grid of image patches (as in Qwen2-VL's vision encoder)."""

import torch


def rope_2d(x: torch.Tensor, grid_h: int, grid_w: int, base: float = 10000.0) -> torch.Tensor:
    """Rotate patch vectors by their (row, column) position in a grid_h × grid_w grid.

    x: (..., grid_h·grid_w, D) float tensor, patches in row-major order (patch p is at row
    p // grid_w, column p % grid_w); D divisible by 4. Returns a tensor of x's shape and dtype.
    Half of the D/2 rotation planes turn by row·θ_i, the other half by column·θ_i, with the
    1D RoPE frequencies of D/2 dimensions, θ_i = base^(−4i/D), i = 0 .. D/4 − 1. So the dot
    product of two rotated patches depends only on (Δrow, Δcolumn) and the vectors.
    """
    ### BEGIN SOLUTION
    d = x.shape[-1]
    if d % 4 or x.shape[-2] != grid_h * grid_w:
        raise ValueError(f"expected (..., {grid_h * grid_w}, D) with D divisible by 4, got {tuple(x.shape)}")
    theta = base ** (-torch.arange(0, d // 2, 2, dtype=torch.float64) / (d // 2))  # (D/4,)
    p = torch.arange(grid_h * grid_w)
    rows, cols = (p // grid_w).double(), (p % grid_w).double()
    angles = torch.cat([rows[:, None] * theta, cols[:, None] * theta], dim=-1)  # (HW, D/2)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    first, second = x[..., : d // 2], x[..., d // 2 :]  # plane i is the pair (i, i + D/2)
    return torch.cat([first * cos - second * sin, first * sin + second * cos], dim=-1)
    ### END SOLUTION
