"""scaling: Chinchilla fits, isoFLOP sweeps, compute-optimal and inference-aware sizing, and
an MoE's total and active parameters."""

from .chinchilla import CHINCHILLA_GRID, ScalingParams, chinchilla_loss, fit_scaling_law
from .compute import compute_optimal, inference_optimal, moe_training_flops
from .counts import moe_param_counts
from .isoflop import fit_power_law, isoflop_minima
from .sweeps import invalid_sweep_runs

__all__ = [
    "CHINCHILLA_GRID",
    "ScalingParams",
    "chinchilla_loss",
    "compute_optimal",
    "fit_power_law",
    "fit_scaling_law",
    "inference_optimal",
    "invalid_sweep_runs",
    "isoflop_minima",
    "moe_param_counts",
    "moe_training_flops",
]
