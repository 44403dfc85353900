"""rope_2d ported from transformers' Qwen2-VL vision rotary (modeling_qwen2_vl.py:
VisionRotaryEmbedding, Qwen2VisionTransformerPretrainedModel.rot_pos_emb and
apply_rotary_pos_emb_vision): inverse frequencies and the rotation in float32, whatever the
input's dtype, cast back at the end; rotate_half pairing (i, i + D/2); the first D/4 planes
turn with the row, the next D/4 with the column. Patches stay in row-major order (the
contract's), without Qwen2-VL's 2 x 2 merge-window reordering."""

import torch


class VisionRotaryEmbedding(torch.nn.Module):
    def __init__(self, dim: int, theta: float = 10000.0) -> None:
        super().__init__()
        inv_freq = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float) / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, seqlen: int) -> torch.Tensor:
        seq = torch.arange(seqlen, device=self.inv_freq.device, dtype=self.inv_freq.dtype)
        return torch.outer(seq, self.inv_freq)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def rope_2d(x: torch.Tensor, grid_h: int, grid_w: int, base: float = 10000.0) -> torch.Tensor:
    head_dim = x.shape[-1]
    rotary = VisionRotaryEmbedding(head_dim // 2, theta=base)
    hpos = torch.arange(grid_h).unsqueeze(1).expand(-1, grid_w).flatten()
    wpos = torch.arange(grid_w).unsqueeze(0).expand(grid_h, -1).flatten()
    pos_ids = torch.stack([hpos, wpos], dim=-1)
    full = rotary(max(grid_h, grid_w))
    rotary_pos_emb = full[pos_ids].flatten(1)  # (HW, D/2): row frequencies, then column ones
    emb = torch.cat((rotary_pos_emb, rotary_pos_emb), dim=-1)
    cos, sin = emb.cos(), emb.sin()
    orig_dtype = x.dtype
    x = x.float()
    out = (x * cos) + (rotate_half(x) * sin)
    return out.to(orig_dtype)
