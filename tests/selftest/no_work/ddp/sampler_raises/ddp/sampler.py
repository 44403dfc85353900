# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""ShardedSampler: each rank's slice of one global shuffle (torch's DistributedSampler)."""

import math
from collections.abc import Iterator

import torch


class ShardedSampler:
    """The indices rank `rank` of `num_replicas` reads: exactly DistributedSampler's.

    ShardedSampler(dataset_len, num_replicas, rank, shuffle=True, seed=0, drop_last=False)
    - ValueError unless 0 <= rank < num_replicas (and dataset_len >= 0).
    - Each epoch, every rank builds the same global order: with shuffle, the permutation
      torch.randperm(dataset_len, generator=g) with g = torch.Generator() seeded by
      g.manual_seed(seed + epoch); without shuffle, 0, 1, ..., dataset_len - 1.
    - Without drop_last the order is padded to the next multiple of num_replicas by wrapping
      around to its start (repeating the whole order as often as needed when the dataset is
      smaller than the padding); with drop_last it is truncated to the largest multiple.
    - Rank r takes every num_replicas-th index of it, starting at position r (a strided,
      not a contiguous, shard). __len__ is the number of indices each rank gets.
    - set_epoch(epoch) chooses the epoch the next __iter__ uses; it starts at 0 and iterating
      does not change it. All ranks must call it with the same epoch.
    """

    def __init__(self, dataset_len: int, num_replicas: int, rank: int, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False):
        raise ValueError("no sampler")

    def set_epoch(self, epoch: int) -> None:
        """Choose the epoch whose shuffle the next __iter__ returns (all ranks must agree)."""
        ### BEGIN SOLUTION
        self.epoch = epoch
        ### END SOLUTION

    def __iter__(self) -> Iterator[int]:
        """This rank's indices for the current epoch."""
        ### BEGIN SOLUTION
        if self.shuffle:
            g = torch.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = torch.randperm(self.dataset_len, generator=g).tolist()
        else:
            indices = list(range(self.dataset_len))
        if self.drop_last:
            indices = indices[: self.total_size]
        else:  # pad by wrapping around (more than once if the dataset is smaller than the pad)
            padding = self.total_size - len(indices)
            indices += (indices * math.ceil(padding / max(len(indices), 1)))[:padding]
        return iter(indices[self.rank : self.total_size : self.num_replicas])
        ### END SOLUTION

    def __len__(self) -> int:
        """How many indices each rank gets per epoch."""
        ### BEGIN SOLUTION
        return self.num_samples
        ### END SOLUTION
