"""ddp: RANK/WORLD_SIZE, a sharded sampler with set_epoch, the global batch, MiniDDP, and an
all-or-nothing rendezvous."""

from .batch import global_batch_size, tokens_per_step
from .env import DistEnv, dist_env_from
from .mini_ddp import MiniDDP
from .rendezvous import join_process_group
from .sampler import ShardedSampler
from .train import train_step

__all__ = [
    "DistEnv",
    "MiniDDP",
    "ShardedSampler",
    "dist_env_from",
    "global_batch_size",
    "join_process_group",
    "tokens_per_step",
    "train_step",
]
