"""Task 5 (hidden) — rendezvous is all-or-nothing, seen from every rank: with all ranks of a job
present every one of them joins; with one rank missing none of the others does, and each gives
up within its timeout. The job is 2 machines x 2 processes (as torchrun numbers them: RANK is
the index in the job, LOCAL_RANK on the machine), each rank parsing its own environment with
your `dist_env_from`."""

import datetime
import multiprocessing as mp
import socket
import time

import numpy as np
import torch.distributed as dist

from autograder.harness import exception_kind, graded
from ddp import dist_env_from

RENDEZVOUS_TIMEOUT_S = 2  # a job with a rank missing: every started rank gives up after this
# A job whose ranks all start waits longer: on some machines one of 4 ranks started back to back
# has its connect to torch's TCPStore answered only after 5 s (seen with a bare TCPStore too),
# and a correct rendezvous must still join there.
ALL_START_TIMEOUT_S = 10
GIVE_UP_WITHIN_S = 10 * RENDEZVOUS_TIMEOUT_S  # generous: forked ranks on a loaded machine


NODES, PER_NODE = 2, 2


def job_cases(rng: np.random.Generator) -> list:
    """Which rank of the 2 x 2 job never starts (None: all start)."""
    return [{"missing": None}, {"missing": int(rng.integers(0, NODES * PER_NODE))}]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def environ_of(rank: int, port: int) -> dict:
    """What torchrun exports to global rank `rank` of the 2 x 2 job (all on loopback here)."""
    return {"RANK": str(rank), "WORLD_SIZE": str(NODES * PER_NODE),
            "LOCAL_RANK": str(rank % PER_NODE), "LOCAL_WORLD_SIZE": str(PER_NODE),
            "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}


def join(environ: dict, timeout_s: float, results) -> None:
    """One rank: parse its environment, rendezvous, and report "joined" or what it raised."""
    try:
        env = dist_env_from(environ)
        dist.init_process_group(
            "gloo", init_method=f"tcp://{env.master_addr}:{env.master_port}", rank=env.rank,
            world_size=env.world_size, timeout=datetime.timedelta(seconds=timeout_s))
        dist.barrier()
        outcome = "joined"
    except Exception as e:  # noqa: BLE001 - the kind is the observation
        outcome = f"raised {exception_kind(e)}"
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
    results.put((int(environ["RANK"]), outcome))


def run_job(missing: int | None) -> tuple[dict, float]:
    """Start every rank but `missing` as forked processes; their outcomes and the seconds until
    the last one answered (ranks that never answer are killed and reported as "no answer")."""
    ctx = mp.get_context("fork")
    results = ctx.Queue()
    port = free_port()
    timeout_s = ALL_START_TIMEOUT_S if missing is None else RENDEZVOUS_TIMEOUT_S
    start = time.monotonic()
    procs = [ctx.Process(target=join, args=(environ_of(r, port), timeout_s, results))
             for r in range(NODES * PER_NODE) if r != missing]
    for p in procs:
        p.start()
    outcomes: dict = {}
    deadline = start + GIVE_UP_WITHIN_S + 10
    while len(outcomes) < len(procs) and time.monotonic() < deadline:
        try:
            rank, outcome = results.get(timeout=max(0.1, deadline - time.monotonic()))
        except Exception:  # noqa: BLE001 - queue.Empty: the deadline passed
            break
        outcomes[rank] = outcome
    seconds = time.monotonic() - start
    for p in procs:
        p.join(timeout=1)
        if p.is_alive():
            p.kill()
            p.join()
    return outcomes, seconds


@graded(points=2, cases=job_cases, timeout=60)
def test_rendezvous_is_all_or_nothing(rec, cases):
    for c in cases:
        n, missing = NODES * PER_NODE, c["missing"]
        outcomes, seconds = run_job(missing)
        what = f"{NODES} x {PER_NODE} job, " + ("all ranks start" if missing is None
                                                 else f"rank {missing} never starts")
        for rank in range(n):
            if rank != missing:
                rec.exact(f"{what}: rank {rank}", outcomes.get(rank, "no answer"))
        rec.exact(f"{what}: every started rank answered within {GIVE_UP_WITHIN_S} s",
                  len(outcomes) == n - (missing is not None) and seconds < GIVE_UP_WITHIN_S)
