"""Task 4 (hidden) — MiniDDP and train_step over 3 real processes, and a process group.

One start of 3 worker processes serves every test of this file: each rank runs every section
of BATTERY (see common.Battery: in turn, or apart once one goes wrong), and each graded
test records its own section on every rank.
"""

import numpy as np
import torch.distributed as dist
from common import Battery, Net, grads, mse, params, shard

from autograder.harness import graded
from ddp import MiniDDP

TEST_TIMEOUT_S = 90


def section_process_group(b: Battery, rank: int, c: dict) -> dict:
    """Ranks 1 and 2 form a group of their own; rank 0 stays out of it."""
    group = dist.new_group([1, 2])  # every rank must call new_group
    if rank == 0:
        return {"outside_the_group": True}
    net = Net(c["init"][rank], extras=False)
    model = MiniDDP(net, process_group=group)
    out = {f"constructed.{k}": v for k, v in params(net).items()}  # rank 1's weights
    x, y = c["x"][0][: 2 * (len(c["x"][0]) // 2)], c["y"][0][: 2 * (len(c["y"][0]) // 2)]
    mse(model(shard(x, rank - 1, 2)), shard(y, rank - 1, 2)).backward()
    return {**out, **grads(net), "allreduce_calls": model.allreduce_calls}


BATTERY = Battery(
    __file__, "hidden", world_size=3, steps=3, micro_batches=2, rows_per_micro=2,
    d_in=4, d_hidden=5, d_out=3,
    sampler_len=10, sampler_epochs=3,  # 10 rows over 3 ranks: two padded indices per epoch
    extra_sections={"process_group": section_process_group},
)


def battery_cases(rng: np.random.Generator) -> dict:
    # one seed for every test of the file (shared_seed): one start of the ranks serves them all
    return BATTERY.cases(seed=int(rng.integers(2**31)))


@graded(points=3, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_broadcast_at_construction_3_ranks(rec, cases):
    """Ranks start from different weights; after MiniDDP(net) all hold rank 0's (and buffers)."""
    BATTERY.record(rec, "broadcast", cases)


@graded(points=3, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_gradients_are_averaged_3_ranks(rec, cases):
    """After one backward on each rank's shard, every rank holds the full-batch gradient."""
    BATTERY.record(rec, "average", cases)


@graded(points=3, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_training_matches_single_process_3_ranks(rec, cases):
    """SGD steps on shards equal single-process full-batch SGD from rank 0's weights."""
    BATTERY.record(rec, "training", cases)


@graded(points=3, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_no_sync_accumulates_locally_3_ranks(rec, cases):
    """Inside no_sync() gradients stay local; the next backward averages the accumulated sum."""
    BATTERY.record(rec, "no_sync", cases)


@graded(points=4, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_train_step_accumulation_3_ranks(rec, cases):
    """train_step over micro-batches equals one large batch, with one all-reduce per step."""
    BATTERY.record(rec, "train_step", cases)


@graded(points=2, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_frozen_and_unused_parameters_3_ranks(rec, cases):
    """A frozen layer and a layer forward never uses do not break the synchronization."""
    BATTERY.record(rec, "frozen_unused", cases)


@graded(points=2, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_sampler_in_process_group_3_ranks(rec, cases):
    """Each real rank's ShardedSampler: every index once per epoch, a new order per epoch; the
    last epoch's shards through MiniDDP give every rank the gradient over all of them."""
    BATTERY.record(rec, "sampler", cases)


@graded(points=2, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_process_group_3_ranks(rec, cases):
    """MiniDDP(net, process_group=g) broadcasts from g's rank 0 and averages over g only."""
    BATTERY.record(rec, "process_group", cases)
