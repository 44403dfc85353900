"""Task 4 — MiniDDP and train_step, run by real processes (gloo over 127.0.0.1).

One start of 2 worker processes serves every test of this file: each rank runs every section
of BATTERY (see common.Battery: in turn, or apart once one goes wrong), and each graded
test records its own section on every rank.
"""

import numpy as np
import torch.distributed as dist
from common import Battery, MiniDDP, Net, grads, mse, section_buffers, shard

from autograder.harness import graded

TEST_TIMEOUT_S = 90


def section_own_group(b: Battery, rank: int, c: dict) -> dict:
    """Each rank in a process group of its own (size 1): averaging over process_group leaves
    the rank's own gradient (dividing by the default group's size would halve it)."""
    groups = [dist.new_group([r]) for r in range(b.world_size)]  # every rank calls each
    net = Net(c["init"][0], extras=False)
    model = MiniDDP(net, process_group=groups[rank])
    mse(model(shard(c["x"][0], rank, b.world_size)), shard(c["y"][0], rank, b.world_size)).backward()
    return {**grads(net), "allreduce_calls": model.allreduce_calls}


BATTERY = Battery(
    __file__, "public", world_size=2, steps=2, micro_batches=3, rows_per_micro=2,
    d_in=3, d_hidden=4, d_out=2,
    sampler_len=7, sampler_epochs=3,  # 7 rows over 2 ranks: one padded index per epoch
    extra_sections={"own_group": section_own_group, "buffers": section_buffers},
)


def battery_cases(rng: np.random.Generator) -> dict:
    # one seed for every test of the file (shared_seed): one start of the ranks serves them all
    return BATTERY.cases(seed=int(rng.integers(2**31)))


@graded(points=3, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_broadcast_at_construction(rec, cases):
    """Ranks start from different weights; after MiniDDP(net) all hold rank 0's (and buffers)."""
    BATTERY.record(rec, "broadcast", cases)


@graded(points=2, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_models_that_differ_only_in_buffers(rec, cases):
    """Ranks start from the same weights and their own buffers (BatchNorm running statistics in
    a submodule, non-persistent buffers): after MiniDDP(net) every buffer is rank 0's, and in
    eval mode every rank computes rank 0's output."""
    BATTERY.record(rec, "buffers", cases)


@graded(points=3, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_gradients_are_averaged(rec, cases):
    """After one backward on each rank's shard, every rank holds the full-batch gradient; in a
    process group of its own, each rank keeps its own gradient (the average over that group)."""
    BATTERY.record(rec, "average", cases)
    BATTERY.record(rec, "own_group", cases, prefix="own group: ")


@graded(points=3, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_training_matches_single_process(rec, cases):
    """SGD steps on shards equal single-process full-batch SGD from rank 0's weights."""
    BATTERY.record(rec, "training", cases)


@graded(points=3, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_no_sync_accumulates_locally(rec, cases):
    """Inside no_sync() gradients stay local; the next backward averages the accumulated sum."""
    BATTERY.record(rec, "no_sync", cases)


@graded(points=4, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_train_step_accumulation(rec, cases):
    """train_step over micro-batches equals one large batch, with one all-reduce per step."""
    BATTERY.record(rec, "train_step", cases)


@graded(points=2, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_frozen_and_unused_parameters(rec, cases):
    """A frozen layer and a layer forward never uses do not break the synchronization."""
    BATTERY.record(rec, "frozen_unused", cases)


@graded(points=2, cases=battery_cases, timeout=TEST_TIMEOUT_S, shared_seed="data_parallel")
def test_sampler_in_process_group(rec, cases):
    """Each real rank's ShardedSampler: every index once per epoch, a new order per epoch; the
    last epoch's shards through MiniDDP give every rank the gradient over all of them."""
    BATTERY.record(rec, "sampler", cases)
