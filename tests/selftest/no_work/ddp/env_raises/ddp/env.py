# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""RANK, WORLD_SIZE and friends: the environment torchrun gives every worker."""

from collections.abc import Mapping
from dataclasses import dataclass

REQUIRED = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


@dataclass(frozen=True)
class DistEnv:
    """Where this process sits in the job, and where the rendezvous store listens."""

    rank: int  # global rank, 0 <= rank < world_size
    world_size: int  # number of processes in the whole job
    local_rank: int  # rank on this machine, 0 <= local_rank < local_world_size
    local_world_size: int  # processes on this machine
    master_addr: str  # host of rank 0's TCP store
    master_port: int  # its port, 1..65535


def _int(environ: Mapping[str, str], key: str) -> int:
    """A helper you may use (or delete): environ[key] as an int, or a ValueError naming key."""
    ### BEGIN SOLUTION
    try:
        return int(environ[key])
    except ValueError:
        raise ValueError(f"{key}={environ[key]!r} is not an integer") from None
    ### END SOLUTION


def dist_env_from(environ: Mapping[str, str]) -> DistEnv:
    """Parse the six variables torchrun exports into a DistEnv.

    environ: a mapping like os.environ (str -> str). Other variables are ignored.
    Returns DistEnv(rank, world_size, local_rank, local_world_size, master_addr, master_port)
    with the five numbers as int and master_addr as given.

    Raises ValueError, with a message naming the variable, when:
    - one of REQUIRED is missing or empty (or only whitespace);
    - RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE or MASTER_PORT is not an integer ("1.5",
      "two");
    - MASTER_PORT is outside 1..65535;
    - not 0 <= RANK < WORLD_SIZE, or not 0 <= LOCAL_RANK < LOCAL_WORLD_SIZE (so a negative
      rank, or a world size of 0, is an error too).
    """
    raise ValueError("no environment accepted")
