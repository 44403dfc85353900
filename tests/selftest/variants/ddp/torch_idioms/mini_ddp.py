"""MiniDDP with other free choices: one all_reduce per tensor (counted once per backward),
broadcast through the group's global rank of its rank 0, unused parameters left at None."""

from contextlib import contextmanager

import torch
import torch.distributed as dist
from torch import nn


class MiniDDP(nn.Module):
    def __init__(self, module: nn.Module, process_group=None):
        super().__init__()
        self.module = module
        self.process_group = process_group
        self.allreduce_calls = 0
        self._syncing = True
        self._pending = False
        source = dist.get_global_rank(process_group, 0) if process_group is not None else 0
        with torch.no_grad():
            for tensor in list(module.parameters()) + list(module.buffers()):
                dist.broadcast(tensor, src=source, group=process_group)
        for param in module.parameters():
            if param.requires_grad:
                param.register_post_accumulate_grad_hook(self._grad_ready)

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    @contextmanager
    def no_sync(self):
        before = self._syncing
        self._syncing = False
        try:
            yield self
        finally:
            self._syncing = before

    def _grad_ready(self, _param):
        if self._syncing and not self._pending:
            self._pending = True
            torch.autograd.Variable._execution_engine.queue_callback(self._sync)

    def _sync(self):
        self._pending = False
        size = dist.get_world_size(self.process_group)
        for param in self.module.parameters():
            if param.requires_grad and param.grad is not None:
                dist.all_reduce(param.grad, group=self.process_group)
                param.grad.div_(size)
        self.allreduce_calls += 1
