"""ShardedSampler with other free choices: the order as a tensor, padding by tiling, and
__iter__ returning an iterator over a list (not a generator)."""

import torch


class SamplerError(ValueError):
    """A ValueError of its own (the contract asks for a ValueError)."""


class ShardedSampler:
    def __init__(self, dataset_len, num_replicas, rank, shuffle=True, seed=0, drop_last=False):
        if not 0 <= rank < num_replicas:
            raise SamplerError(f"rank {rank} is not in 0..{num_replicas - 1}")
        self._n, self._replicas, self._rank = dataset_len, num_replicas, rank
        self._shuffle, self._seed, self._drop_last = shuffle, seed, drop_last
        self._epoch = 0

    def set_epoch(self, epoch):
        self._epoch = epoch

    def _per_rank(self):
        if self._drop_last:
            return self._n // self._replicas
        return -(-self._n // self._replicas)

    def __len__(self):
        return self._per_rank()

    def __iter__(self):
        if self._shuffle:
            g = torch.Generator()
            g.manual_seed(self._seed + self._epoch)
            order = torch.randperm(self._n, generator=g)
        else:
            order = torch.arange(self._n)
        total = self._per_rank() * self._replicas
        if total > len(order) and len(order) > 0:
            order = order.repeat(-(-total // len(order)))
        order = order[:total]
        return iter(order[self._rank::self._replicas].tolist())
