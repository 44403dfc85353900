"""Joining the job: an all-or-nothing rendezvous with a deadline that holds."""

import datetime
import socket
import time
from collections.abc import Mapping

import torch.distributed as dist

from .env import DistEnv, dist_env_from


def join_process_group(environ: Mapping[str, str], timeout_s: float, backend: str = "gloo") -> DistEnv:
    """Join the job torchrun started: parse `environ` with dist_env_from, initialize the default
    process group at tcp://MASTER_ADDR:MASTER_PORT with that rank and world size and a timeout
    of `timeout_s` seconds (the same timeout then bounds every collective), and return the
    DistEnv.

    Rendezvous is all-or-nothing: the call returns only once all world_size ranks have joined.
    When they have not all joined within timeout_s (a rank never started, rank 0's store is not
    there) it raises TimeoutError, with whatever exception torch raised chained as its cause,
    and leaves no default process group initialized. A bad environment raises dist_env_from's
    ValueError before anything connects.
    """
    ### BEGIN SOLUTION
    env = dist_env_from(environ)
    deadline = time.monotonic() + timeout_s
    timeout = datetime.timedelta(seconds=timeout_s)
    try:
        if env.rank != 0:
            # torch's TCPStore client retries a refused connection with backoff and can take
            # two to three timeouts to give up: wait for rank 0's store ourselves, by the
            # deadline, before torch connects.
            _wait_for_listener(env.master_addr, env.master_port, deadline)
        dist.init_process_group(backend, init_method=f"tcp://{env.master_addr}:{env.master_port}",
                                rank=env.rank, world_size=env.world_size, timeout=timeout)
    except Exception as e:
        if dist.is_initialized():
            dist.destroy_process_group()
        raise TimeoutError(f"rank {env.rank}: not all {env.world_size} ranks joined at "
                           f"{env.master_addr}:{env.master_port} within {timeout_s} s") from e
    return env
    ### END SOLUTION


def _wait_for_listener(host: str, port: int, deadline: float) -> None:
    """A helper you may use (or delete): return once something accepts TCP connections at
    host:port; raise TimeoutError (the last connection error as its cause) at `deadline`
    (a time.monotonic() value)."""
    ### BEGIN SOLUTION
    while True:
        left = deadline - time.monotonic()
        try:
            with socket.create_connection((host, port), timeout=max(0.05, min(left, 1.0))):
                return
        except OSError as e:
            if time.monotonic() + 0.05 >= deadline:
                raise TimeoutError(f"nothing listens at {host}:{port}") from e
            time.sleep(0.05)
    ### END SOLUTION
