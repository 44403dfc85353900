"""dist_env_from raising a ValueError subclass of its own, checking in another order."""

from collections.abc import Mapping
from dataclasses import dataclass


class EnvError(ValueError):
    """What this module raises: a ValueError, as the contract asks."""


@dataclass(frozen=True)
class DistEnv:
    rank: int
    world_size: int
    local_rank: int
    local_world_size: int
    master_addr: str
    master_port: int


def _get(environ: Mapping[str, str], key: str) -> str:
    value = environ.get(key)
    if value is None or not value.strip():
        raise EnvError(f"{key} is not set")
    return value


def _number(environ: Mapping[str, str], key: str) -> int:
    text = _get(environ, key)
    if not text.strip().lstrip("-").isdigit():
        raise EnvError(f"{key}={text!r} is not an integer")
    return int(text)


def dist_env_from(environ: Mapping[str, str]) -> DistEnv:
    addr = _get(environ, "MASTER_ADDR")
    port = _number(environ, "MASTER_PORT")
    if port < 1 or port > 65535:
        raise EnvError(f"MASTER_PORT={port} out of range")
    world, rank = _number(environ, "WORLD_SIZE"), _number(environ, "RANK")
    local_world, local = _number(environ, "LOCAL_WORLD_SIZE"), _number(environ, "LOCAL_RANK")
    if rank < 0 or rank >= world or local < 0 or local >= local_world:
        raise EnvError("rank out of range")
    return DistEnv(rank, world, local, local_world, addr, port)
