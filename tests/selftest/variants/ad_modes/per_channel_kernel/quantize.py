"""fake_quantize with torch's own kernel for the rounding, the clamp and the straight-through
mask (torch.fake_quantize_per_channel_affine on the groups as channels), given the per-group
scale and zero point it derives itself by the contract's rule: the kernel needs them, and no
torch function derives them so. round_ste as the kernel with a unit scale is not this: the
kernel's codes are int64, and round_ste must hold for every float (this file keeps the
reference's detach trick)."""

import torch


def round_ste(x):
    return x + (x.round() - x).detach()


def fake_quantize(x, group_size, qmin, qmax):
    groups = x.reshape(-1, group_size)
    with torch.no_grad():
        lo, hi = groups.amin(dim=1), groups.amax(dim=1)
        scale = (hi - lo).clamp(min=1e-5) / (qmax - qmin)
        zero = (qmin - torch.round(lo / scale)).clamp(qmin, qmax).to(torch.int32)
    out = torch.fake_quantize_per_channel_affine(groups, scale.float(), zero, 0, qmin, qmax)
    return out.reshape(x.shape)
