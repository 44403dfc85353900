# Variant ddp/torch_distributed_sampler: torch.utils.data.DistributedSampler's own arithmetic
# (torch/utils/data/distributed.py)
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
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset_len, self.num_replicas, self.rank = dataset_len, num_replicas, rank
        self.epoch = 0
        self.drop_last = drop_last
        # torch: "If the dataset length is evenly divisible by # of replicas, then there is no need
        # to drop any data, since the dataset will be split equally."
        if self.drop_last and dataset_len % self.num_replicas != 0:
            self.num_samples = math.ceil((dataset_len - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(dataset_len / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def set_epoch(self, epoch: int) -> None:
        """Choose the epoch whose shuffle the next __iter__ returns (all ranks must agree)."""
        ### BEGIN SOLUTION
        self.epoch = epoch
        ### END SOLUTION

    def __iter__(self) -> Iterator[int]:
        """This rank's indices for the current epoch."""
        if self.shuffle:
            g = torch.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = torch.randperm(self.dataset_len, generator=g).tolist()
        else:
            indices = list(range(self.dataset_len))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[: self.total_size]
        assert len(indices) == self.total_size
        indices = indices[self.rank : self.total_size : self.num_replicas]
        assert len(indices) == self.num_samples
        return iter(indices)

    def __len__(self) -> int:
        """How many indices each rank gets per epoch."""
        ### BEGIN SOLUTION
        return self.num_samples
        ### END SOLUTION
