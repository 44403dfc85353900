"""round_ste and fake_quantize computed in float32 whatever the input's dtype (the dtype is not
fixed by the contract), with a custom autograd.Function for the straight-through backward, as
quantization-aware-training code often writes it; fake_quantize takes each group's min and max
with torch.aminmax and multiplies by a float32 inverse scale, as torch's kernels do."""

import torch


class _RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x.float()).to(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad.float().to(grad.dtype)


def round_ste(x):
    return _RoundSTE.apply(x)


class _GroupFakeQuant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, group_size, qmin, qmax):
        groups = x.detach().float().reshape(-1, group_size)
        lo, hi = torch.aminmax(groups, dim=1, keepdim=True)
        scale = torch.clamp(hi - lo, min=1e-5) / float(qmax - qmin)
        inv = 1.0 / scale
        zero = torch.clamp(qmin - torch.round(lo * inv), qmin, qmax)
        q = torch.round(groups * inv) + zero
        ctx.save_for_backward(((q >= qmin) & (q <= qmax)).reshape(x.shape))
        return ((q.clamp(qmin, qmax) - zero) * scale).reshape(x.shape).to(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return grad * mask.to(grad.dtype), None, None, None


def fake_quantize(x, group_size, qmin, qmax):
    return _GroupFakeQuant.apply(x, group_size, qmin, qmax)
