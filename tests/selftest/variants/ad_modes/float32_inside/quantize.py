"""round_ste and fake_quantize computed in float32 whatever the input's dtype (the dtype is not
fixed by the contract), with a custom autograd.Function for the straight-through backward, as
quantization-aware-training code often writes it; fake_quantize multiplies by a float32
inverse scale, as torch's kernel does."""

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


class _FakeQuant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale, zero_point, qmin, qmax):
        xf = x.float()
        inv = torch.tensor(1.0 / scale, dtype=torch.float32)
        q = torch.round(xf * inv) + zero_point
        ctx.save_for_backward((q >= qmin) & (q <= qmax))
        out = (q.clamp(qmin, qmax) - zero_point) * torch.tensor(scale, dtype=torch.float32)
        return out.to(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return grad * mask.to(grad.dtype), None, None, None, None


def fake_quantize(x, scale, zero_point, qmin, qmax):
    return _FakeQuant.apply(x, scale, zero_point, qmin, qmax)
