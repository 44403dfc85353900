"""Compiled operators a forbidden rule names are disabled in the graded child.

`torch.fake_quantize_per_tensor_affine` is a compiled ATen operator, not Python source, so the
sandbox's view of the packages (autograder/sandbox/view.py) cannot replace its definition.
Before any student code is imported, the child instead overrides every ATen operator that
computes what the rule names (OPERATOR_FAMILIES: the operator and its relatives, e.g. the
`_cachemask`, learnable and fused moving-average variants) with a kernel that raises
ImportError, on every dispatch key that could reach the original (backend, autograd,
composite). Every route finds the override: `torch.<name>`, `torch.ops.aten.<name>`, a name
built at run time, inference mode, `no_grad`. The registration handle is kept alive with no
Python reference to it (not gc-tracked, in no container), so nothing in the child can find
it and undo the override; the original kernels are unreachable.

Golden generation (trusted code) runs without it, as it runs without the import blocker.
"""

from __future__ import annotations

import ctypes
import warnings

# rule -> substrings of the ATen operator names that compute what the rule names
OPERATOR_FAMILIES = {
    "torch.fake_quantize_per_tensor_affine": ("fake_quant", "_fused_moving_avg_obs_fq"),
    "torch.fake_quantize_per_channel_affine": ("fake_quant", "_fused_moving_avg_obs_fq"),
}
DISPATCH_KEYS = ("CPU", "CUDA", "Meta", "AutogradCPU", "AutogradCUDA",
                 "CompositeImplicitAutograd", "CompositeExplicitAutograd")


def _refusal(rule: str):
    def forbidden(*args, **kwargs):
        error = ImportError(f"module '{rule}' is forbidden in this assignment")
        error.graded_forbidden = rule  # reported by plugin.py, as boot.py does
        raise error
    return forbidden


def disable_compiled_operators(rules: list[str]) -> list[str]:
    """Override the ATen operators of every rule in OPERATOR_FAMILIES (torch is imported only
    when one is present); returns the operators disabled, sorted."""
    named = [r for r in rules if r in OPERATOR_FAMILIES]
    if not named:
        return []
    import torch

    all_ops = {n.split("::", 1)[1] for n in torch._C._dispatch_get_all_op_names()
               if n.startswith("aten::")}
    disabled: dict[str, str] = {}
    for rule in named:
        for op in all_ops:
            if any(part in op.split(".", 1)[0] for part in OPERATOR_FAMILIES[rule]):
                disabled.setdefault(op, rule)
    handle = torch._C._dispatch_library("IMPL", "aten", "")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "overriding a previously registered kernel"
        for op, rule in sorted(disabled.items()):
            for key in DISPATCH_KEYS:
                handle.impl(op, key, _refusal(rule), False)
    # keep the registrations for the child's life, reachable from nowhere in Python
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(handle))
    del handle
    return sorted(disabled)
