"""ShardedSampler: each rank's slice of one global shuffle (torch's DistributedSampler)."""

import math
from collections.abc import Iterator

import torch


class ShardedSampler:
    """Indices of rank `rank` among `num_replicas`, identical to DistributedSampler's.

    Every epoch: one permutation of range(dataset_len) seeded with seed + epoch (the same on
    every rank), padded by wrapping around to a multiple of num_replicas (or truncated when
    drop_last), then rank r takes positions r, r + num_replicas, r + 2*num_replicas, ...
    """

    def __init__(self, dataset_len: int, num_replicas: int, rank: int, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False):
        if num_replicas < 1 or not 0 <= rank < num_replicas or dataset_len < 0:
            raise ValueError(f"need 0 <= rank={rank} < num_replicas={num_replicas}, len >= 0")
        self.dataset_len, self.num_replicas, self.rank = dataset_len, num_replicas, rank
        self.shuffle, self.seed, self.drop_last = shuffle, seed, drop_last
        self.epoch = 0
        if drop_last:  # the largest multiple of num_replicas that fits
            self.num_samples = dataset_len // num_replicas
        else:  # the smallest multiple that covers everything
            self.num_samples = math.ceil(dataset_len / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def set_epoch(self, epoch: int) -> None:
        """Choose the epoch whose shuffle the next __iter__ returns (all ranks must agree)."""
        self.epoch = epoch

    def __iter__(self) -> Iterator[int]:
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

    def __len__(self) -> int:
        return self.num_samples
