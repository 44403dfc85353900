"""Regenerate the measured numbers of the ddp handout (README.md).

    .venv/bin/python assignments/06_ddp/make_tables.py --timings  # re-measure, rewrite the block
    .venv/bin/python assignments/06_ddp/make_tables.py --check    # exit 1 if the block is missing

Blocks (see assignments/handout_blocks.py):
- timing-ddp-rendezvous: how long torch's own `init_process_group` (gloo, loopback) takes to
  give up when a rank of a 2 x 2 job never starts. Six ranks per timeout of 1, 3 and 5 s, in
  jobs whose rank 0 is missing (each started rank's client retries the refused connection), as
  a multiple of the timeout; and, in a job of 2 s whose rank 3 is missing, how far past its
  timeout rank 0's store waits, with the message it raises. Wall times depend on the machine
  and its load: rewritten only with --timings (about a minute), only present under --check.
"""

from __future__ import annotations

import datetime
import multiprocessing as mp
import os
import socket
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from handout_blocks import main

RENDEZVOUS = "timing-ddp-rendezvous"
TIMEOUTS_S = (1, 3, 5)
JOBS_PER_TIMEOUT = 2  # each with rank 0 missing: 3 started ranks, 6 per timeout
STORE_TIMEOUT_S = 2
WORLD = 4  # 2 machines x 2 processes, as torchrun numbers them


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def join(rank: int, port: int, timeout_s: float, results) -> None:
    """One rank: torch's init_process_group; reports (rank, seconds until it returned or
    raised, the exception's message or "joined")."""
    import torch.distributed as dist

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)  # torch's C++ warnings and stack dumps of each refused connection
    start = time.monotonic()
    try:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                                world_size=WORLD, timeout=datetime.timedelta(seconds=timeout_s))
        outcome = "joined"
    except Exception as e:  # noqa: BLE001 - the message is the observation
        outcome = str(e).splitlines()[0] if str(e) else type(e).__name__
    results.put((rank, time.monotonic() - start, outcome))


def run_job(missing: int, timeout_s: float) -> dict[int, tuple[float, str]]:
    """Every rank of the job but `missing`, forked at once: {rank: (seconds, outcome)}."""
    ctx = mp.get_context("fork")
    results, port = ctx.Queue(), free_port()
    procs = [ctx.Process(target=join, args=(r, port, timeout_s, results))
             for r in range(WORLD) if r != missing]
    for p in procs:
        p.start()
    out = {}
    for _ in procs:
        rank, seconds, outcome = results.get(timeout=20 * timeout_s + 30)
        out[rank] = (seconds, outcome)
    for p in procs:
        p.join(timeout=10)
    return out


def rendezvous() -> str:
    import torch

    load = os.getloadavg()[0]
    ratios, seconds_at = [], {}
    for timeout_s in TIMEOUTS_S:
        for _ in range(JOBS_PER_TIMEOUT):
            for seconds, outcome in run_job(0, timeout_s).values():
                assert outcome != "joined", "a rank joined a job whose rank 0 never started"
                ratios.append(seconds / timeout_s)
                seconds_at.setdefault(timeout_s, []).append(seconds)
    store_seconds, store_message = run_job(WORLD - 1, STORE_TIMEOUT_S)[0]
    last = TIMEOUTS_S[-1]
    return (f"In our runs (PyTorch {torch.__version__.split('+')[0]}, gloo, loopback, "
            f"{os.cpu_count()} cores at load {load:.1f}, {datetime.date.today().isoformat()}; "
            f"{len(ratios)} ranks, "
            f"timeouts of {', '.join(map(str, TIMEOUTS_S[:-1]))} and {last} s) ranks gave up "
            f"after {min(ratios):.1f} to {max(ratios):.1f} times the timeout (with {last} s: "
            f"after {min(seconds_at[last]):.1f}–{max(seconds_at[last]):.1f} s), and rank 0's "
            f"store waits {store_seconds - STORE_TIMEOUT_S:.1f} s past its timeout "
            f"(\"{store_message}\" with {STORE_TIMEOUT_S} s).")


def generate(timings: bool) -> dict[str, str]:
    return {RENDEZVOUS: rendezvous()} if timings else {}


if __name__ == "__main__":
    sys.exit(main(HERE / "README.md", generate, timing_names=(RENDEZVOUS,)))
