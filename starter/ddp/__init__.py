"""ddp: RANK/WORLD_SIZE, a sharded sampler with set_epoch, the global batch, and MiniDDP."""

from .batch import global_batch_size, tokens_per_step
from .env import DistEnv, dist_env_from
from .mini_ddp import MiniDDP
from .sampler import ShardedSampler
from .train import train_step

__all__ = [
    "DistEnv",
    "MiniDDP",
    "ShardedSampler",
    "dist_env_from",
    "global_batch_size",
    "tokens_per_step",
    "train_step",
]
