"""One optimizer step over several micro-batches: accumulate locally, synchronize once."""

from collections.abc import Callable, Sequence
from contextlib import nullcontext

import torch

from .mini_ddp import MiniDDP


def train_step(model: MiniDDP, optimizer: torch.optim.Optimizer, loss_fn: Callable,
               micro_batches: Sequence[tuple[torch.Tensor, torch.Tensor]]) -> float:
    """Accumulate the gradient of the mean loss over `micro_batches`, then step once.

    Each micro-batch loss is divided by len(micro_batches) so the accumulated gradient is the
    gradient of the mean; all backwards but the last run inside model.no_sync(), so the
    gradients are all-reduced once per step. Returns the mean micro-batch loss (this rank's).
    """
    if not micro_batches:
        raise ValueError("train_step needs at least one micro-batch")
    k = len(micro_batches)
    total = 0.0
    for i, (inputs, targets) in enumerate(micro_batches):
        with model.no_sync() if i < k - 1 else nullcontext():
            loss = loss_fn(model(inputs), targets) / k
            loss.backward()
        total += loss.item()
    optimizer.step()
    optimizer.zero_grad()
    return total
