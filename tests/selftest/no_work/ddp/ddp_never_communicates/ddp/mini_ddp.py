# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""MiniDDP: data parallelism is one broadcast at the start and one all-reduce per step."""

from contextlib import contextmanager

import torch
import torch.distributed as dist
from torch import nn


class MiniDDP(nn.Module):
    """MiniDDP(module, process_group=None): every rank trains the same model on its own data.

    Call it like the module (`model(x)` runs `module(x)`). It works on `module` in place: the
    module's own parameters are the replica's parameters, so an optimizer may be built from
    `module.parameters()` or from `MiniDDP(...).parameters()`.
    - Construction: every parameter and buffer of `module` (frozen ones too) is overwritten
      with rank 0's copy (rank 0 of `process_group`; the default group when None).
    - Backward: once autograd has finished a backward pass through the model, every trainable
      (requires_grad) parameter's .grad is the average over the ranks of the ranks' .grad.
      Frozen parameters keep grad None; a parameter the forward did not use may end with
      grad None or zeros.
    - no_sync(): a context manager; backwards run inside it do not communicate and just
      accumulate into .grad; the first backward after it averages the accumulated gradients.
    - allreduce_calls: the number of backward passes that synchronized gradients (one per
      synchronized backward, however many tensors it reduces; the broadcast is not counted).
    Hints: dist.broadcast / dist.all_reduce with group=process_group;
    Tensor.register_post_accumulate_grad_hook; torch.autograd.Variable._execution_engine.
    queue_callback(fn) runs fn when the current backward pass ends.
    """

    def __init__(self, module: nn.Module, process_group: dist.ProcessGroup | None = None):
        super().__init__()
        self.module = module
        self.process_group = process_group
        self.allreduce_calls = 0
        self._sync = True
        self._sync_queued = False
        self._trainable = []

    def forward(self, *args, **kwargs):
        """Run the wrapped module: `model(x)` is `module(x)`."""
        ### BEGIN SOLUTION
        return self.module(*args, **kwargs)
        ### END SOLUTION

    @contextmanager
    def no_sync(self):
        """Backwards inside this block accumulate local gradients without communicating."""
        ### BEGIN SOLUTION
        previous, self._sync = self._sync, False
        try:
            yield
        finally:
            self._sync = previous
        ### END SOLUTION

    # ---- private helpers: a suggested split of the work (use, change or delete them) --------

    def _on_grad_ready(self, param: torch.Tensor) -> None:
        """A post-accumulate-grad hook: the first gradient of a synchronized backward pass
        queues `_average_gradients` for the end of the pass."""
        ### BEGIN SOLUTION
        # The first gradient of a backward pass queues one all-reduce for the end of the pass.
        if self._sync and not self._sync_queued:
            self._sync_queued = True
            torch.autograd.Variable._execution_engine.queue_callback(self._average_gradients)
        ### END SOLUTION

    def _average_gradients(self) -> None:
        """All-reduce the trainable parameters' gradients and divide by the world size."""
        self._sync_queued = False
