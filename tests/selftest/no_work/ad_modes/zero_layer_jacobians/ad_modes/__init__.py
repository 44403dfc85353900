"""ad_modes: forward mode (dual numbers) and reverse mode (a tape), the Jacobians of softmax and
LayerNorm, and straight-through gradients for round() and fake quantization."""

from ad_modes import ops
from ad_modes.dual import Dual, jvp
from ad_modes.jacobians import cheaper_mode, jacobian_fwd, jacobian_rev
from ad_modes.layers import layernorm_jacobian, layernorm_vjp, softmax_jacobian, softmax_vjp
from ad_modes.quantize import fake_quantize, round_ste
from ad_modes.tape import vjp

__all__ = ["Dual", "cheaper_mode", "fake_quantize", "jacobian_fwd", "jacobian_rev", "jvp",
           "layernorm_jacobian", "layernorm_vjp", "ops", "round_ste", "softmax_jacobian",
           "softmax_vjp", "vjp"]
