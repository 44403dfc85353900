"""Task 5 — rendezvous is all-or-nothing: a missing rank fails within the timeout, not never."""

import datetime
import socket
import time

import numpy as np
import torch.distributed as dist

from autograder.harness import graded
from ddp import dist_env_from

RENDEZVOUS_TIMEOUT_S = 0.5  # gloo gives up after about twice this (1.0 s, at any load)


def alone_cases(rng: np.random.Generator) -> list:
    return [{"RANK": "0", "WORLD_SIZE": str(int(rng.integers(2, 65))), "LOCAL_RANK": "0",
             "LOCAL_WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "0"}]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def join_alone(environ: dict) -> None:
    """Rank 0 of a job whose other ranks never start: init_process_group must give up."""
    env = dist_env_from(environ)
    try:
        dist.init_process_group(
            "gloo", init_method=f"tcp://{env.master_addr}:{env.master_port}", rank=env.rank,
            world_size=env.world_size, timeout=datetime.timedelta(seconds=RENDEZVOUS_TIMEOUT_S))
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


@graded(points=2, cases=alone_cases, timeout=30)
def test_missing_rank_fails_within_timeout(rec, cases):
    for environ in cases:
        environ = {**environ, "MASTER_PORT": str(free_port())}
        start = time.monotonic()
        rec.raises(f"rank 0 of {environ['WORLD_SIZE']}, alone: raises", join_alone, environ)
        rec.exact("world size read", int(dist_env_from(environ).world_size))
        # Gave up within 20 timeouts (the default timeout would wait 30 minutes).
        rec.exact(f"rank 0 of {environ['WORLD_SIZE']}, alone: gave up within 10 s",
                  time.monotonic() - start < 20 * RENDEZVOUS_TIMEOUT_S)
