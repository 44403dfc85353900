# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""One optimizer step over several micro-batches: accumulate locally, synchronize once."""

from collections.abc import Callable, Sequence
from contextlib import nullcontext

import torch

from .mini_ddp import MiniDDP


def train_step(model: MiniDDP, optimizer: torch.optim.Optimizer, loss_fn: Callable,
               micro_batches: Sequence[tuple[torch.Tensor, torch.Tensor]]) -> float:
    """One optimizer step with gradient accumulation over `micro_batches`.

    For each (inputs, targets): loss = loss_fn(model(inputs), targets) / len(micro_batches),
    then loss.backward(); every backward but the last runs inside model.no_sync(), so the
    gradients are all-reduced once per step. Then optimizer.step() and optimizer.zero_grad().
    Returns the mean of the micro-batch losses (this rank's, undivided: a float).
    `optimizer` is a real torch.optim.Optimizer (the tests pass torch.optim.SGD), and
    `loss_fn` a real loss (torch.nn.functional.mse_loss): use them as you would in training.
    """
    inputs, targets = micro_batches[0]
    return float(loss_fn(model(inputs), targets).item())
