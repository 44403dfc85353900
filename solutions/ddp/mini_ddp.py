"""MiniDDP: data parallelism is one broadcast at the start and one all-reduce per step."""

from contextlib import contextmanager

import torch
import torch.distributed as dist
from torch import nn


class MiniDDP(nn.Module):
    """Wrap `module` so that every rank trains the same model on its own data.

    - construction: every parameter and buffer is overwritten with rank 0's (rank 0 of
      `process_group`), so all replicas start identical;
    - backward: when autograd has finished, the gradients of the trainable parameters are
      averaged over the ranks with one all-reduce, so all replicas take the same step;
    - `no_sync()`: backwards inside it keep their gradients local (accumulating in .grad);
      the next backward outside it averages the accumulated sum.
    `allreduce_calls` counts the synchronizing backward passes.
    """

    def __init__(self, module: nn.Module, process_group: dist.ProcessGroup | None = None):
        super().__init__()
        self.module = module
        self.process_group = process_group
        self.allreduce_calls = 0
        self._sync = True
        self._sync_queued = False
        with torch.no_grad():
            for t in [*module.parameters(), *module.buffers()]:
                dist.broadcast(t, group=process_group, group_src=0)
        self._trainable = [p for p in module.parameters() if p.requires_grad]
        for p in self._trainable:
            p.register_post_accumulate_grad_hook(self._on_grad_ready)

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    @contextmanager
    def no_sync(self):
        """Backwards inside this block accumulate local gradients without communicating."""
        previous, self._sync = self._sync, False
        try:
            yield
        finally:
            self._sync = previous

    def _on_grad_ready(self, param: torch.Tensor) -> None:
        # The first gradient of a backward pass queues one all-reduce for the end of the pass.
        if self._sync and not self._sync_queued:
            self._sync_queued = True
            torch.autograd.Variable._execution_engine.queue_callback(self._average_gradients)

    def _average_gradients(self) -> None:
        self._sync_queued = False
        grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in self._trainable]
        flat = torch.cat([g.reshape(-1) for g in grads])
        dist.all_reduce(flat, op=dist.ReduceOp.SUM, group=self.process_group)
        flat /= dist.get_world_size(self.process_group)
        for p, g in zip(self._trainable, flat.split([p.numel() for p in self._trainable])):
            p.grad = g.view_as(p).clone()
        self.allreduce_calls += 1
