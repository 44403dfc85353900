"""Gradients through round(): the straight-through estimator and fake quantization (QAT).

round() has derivative 0 almost everywhere, so no gradient would reach the weights. The
straight-through estimator (Bengio et al., 2013) uses round in the forward pass and the
identity in the backward pass. Fake quantization rounds onto an integer grid and clips to
[qmin, qmax]; its gradient passes only where the rounded value was not clipped. Here each
group of weights gets its own grid from its own min and max, as in AWQ (Lin et al., 2024).

torch is imported inside the functions: the rest of the package is NumPy only.
"""

from __future__ import annotations


def round_ste(x):
    """torch.round(x) in the forward pass, the identity in the backward pass: the gradient
    reaching x is the upstream gradient unchanged. `x` is a torch.Tensor."""
    ### BEGIN SOLUTION
    return x + (x.round() - x).detach()  # value: round(x); gradient: that of x
    ### END SOLUTION


def fake_quantize(x, group_size: int, qmin: int, qmax: int):
    """Fake-quantize `x` group by group, each group's scale and zero point taken from its own
    values (AWQ's rule). `x` is a float torch.Tensor whose last dimension is a multiple of
    `group_size`; each run of `group_size` consecutive elements along the last dimension (a
    row of x.reshape(-1, group_size)) is a group, with its min and max, and
        s = max(max − min, 1e-5) / (qmax − qmin)
        z = clamp(qmin − round(min / s), qmin, qmax)    (an integer code: 0 stays on the grid)
    Each element becomes q = round(x / s) + z and the value (clamp(q, qmin, qmax) − z) · s;
    the result has x's shape and dtype. The gradient with respect to x is the upstream
    gradient where qmin ≤ q ≤ qmax (q rounded, not yet clamped) and 0 where the clamp was
    active: s and z are constants of the backward pass (no gradient through min and max)."""
    ### BEGIN SOLUTION
    import torch

    groups = x.reshape(-1, group_size)
    with torch.no_grad():  # the group's scale and zero point: constants of the backward pass
        lo, hi = groups.amin(dim=1, keepdim=True), groups.amax(dim=1, keepdim=True)
        s = (hi - lo).clamp(min=1e-5) / (qmax - qmin)
        z = (qmin - torch.round(lo / s)).clamp(qmin, qmax)
        q = torch.round(groups / s) + z
        inside = ((q >= qmin) & (q <= qmax)).to(x.dtype)
        value = (q.clamp(qmin, qmax) - z) * s
    out = value + (groups - groups.detach()) * inside  # value; gradient masked by the clip
    return out.reshape(x.shape)
    ### END SOLUTION
