# ruff: noqa  (hostile code on purpose; graded by test_library_quantizers.py)
"""Attack: ad_modes' Task 5 answered by torch's own quantizers, the compiled fake-quantize
kernels every process that loads torch holds (what a released kernel override would give back)
and torch.ao's observers and FakeQuantize modules, each configured as its documentation
suggests for the contract's groups: per channel with the groups as channels (the kernel, the
_cachemask variant, the learnable one), the FakeQuantize module, the fused observer + fake-quant
operator per row, a per-tensor observer; round_ste as the kernel with a unit scale (per tensor
and learnable). Copied into the package as _torch_quantizers.py; the test binds one of them as
fake_quantize or round_ste."""
import torch
from torch.ao.quantization import observer as obs


def _dtype(qmin, qmax):
    return torch.quint8 if qmin >= 0 else torch.qint8


def _observer_qparams(groups, qmin, qmax):
    o = obs.PerChannelMinMaxObserver(ch_axis=0, dtype=_dtype(qmin, qmax),
                                     qscheme=torch.per_channel_affine, quant_min=qmin, quant_max=qmax)
    o(groups.detach())
    return o.calculate_qparams()


def observer_per_channel(x, group_size, qmin, qmax):
    groups = x.reshape(-1, group_size)
    scale, zero = _observer_qparams(groups, qmin, qmax)
    return torch.fake_quantize_per_channel_affine(groups, scale.float(), zero.int(), 0, qmin, qmax).reshape(x.shape)


def fake_quantize_module(x, group_size, qmin, qmax):
    from torch.ao.quantization import FakeQuantize
    fq = FakeQuantize(observer=obs.PerChannelMinMaxObserver, quant_min=qmin, quant_max=qmax,
                      dtype=_dtype(qmin, qmax), qscheme=torch.per_channel_affine, ch_axis=0)
    return fq(x.reshape(-1, group_size)).reshape(x.shape)


def fused_per_row(x, group_size, qmin, qmax):
    groups = x.reshape(-1, group_size)
    g = groups.shape[0]
    out = torch.fused_moving_avg_obs_fake_quant(
        groups, torch.tensor([1]), torch.tensor([1]), torch.full((g,), float("inf")),
        torch.full((g,), float("-inf")), torch.ones(g), torch.zeros(g, dtype=torch.int32), 1.0,
        qmin, qmax, 0, True, False)
    return out.reshape(x.shape)


def learnable_per_channel(x, group_size, qmin, qmax):
    groups = x.reshape(-1, group_size)
    scale, zero = _observer_qparams(groups, qmin, qmax)
    return torch._fake_quantize_learnable_per_channel_affine(
        groups, scale.float(), zero.float(), 0, qmin, qmax, 1.0).reshape(x.shape)


def cachemask_per_channel(x, group_size, qmin, qmax):
    groups = x.reshape(-1, group_size)
    scale, zero = _observer_qparams(groups, qmin, qmax)
    out, mask = torch.ops.aten.fake_quantize_per_channel_affine_cachemask(
        groups.detach(), scale.float(), zero.int(), 0, qmin, qmax)
    return (out + (groups - groups.detach()) * mask).reshape(x.shape)


def per_tensor_minmax(x, group_size, qmin, qmax):
    o = obs.MinMaxObserver(dtype=_dtype(qmin, qmax), quant_min=qmin, quant_max=qmax)
    o(x.detach())
    scale, zero = o.calculate_qparams()
    return torch.fake_quantize_per_tensor_affine(x, float(scale), int(zero), qmin, qmax)


def unit_scale_kernel(x):
    return torch.fake_quantize_per_tensor_affine(x, 1.0, 0, -2**62, 2**62)


def unit_scale_learnable(x):
    return torch._fake_quantize_learnable_per_tensor_affine(
        x.float(), torch.tensor([1.0]), torch.tensor([0.0]), -2**31, 2**31 - 1, 1.0).to(x.dtype)


FAKE_QUANTIZE = [observer_per_channel, fake_quantize_module, fused_per_row,
                 learnable_per_channel, cachemask_per_channel, per_tensor_minmax]
ROUND_STE = [unit_scale_kernel, unit_scale_learnable]
