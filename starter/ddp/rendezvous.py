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
    raise NotImplementedError


def _wait_for_listener(host: str, port: int, deadline: float) -> None:
    """A helper you may use (or delete): return once something accepts TCP connections at
    host:port; raise TimeoutError (the last connection error as its cause) at `deadline`
    (a time.monotonic() value)."""
    raise NotImplementedError
