"""Task 6: join_process_group. A 2 x 2 job joins on gloo; with one rank missing every started
rank raises TimeoutError within 3x the timeout and keeps no process group."""

import numpy as np
from common import job_environ, record_job, run_jobs

from autograder.harness import clean_call, graded
from ddp import join_process_group

NODES, PER_NODE = 2, 2


def join_cases(rng: np.random.Generator) -> dict:
    """The whole 2 x 2 job (a generous timeout: joining takes milliseconds), the same job with
    one rank past rank 0 missing, and an environment join_process_group must refuse."""
    return {"all": {"nodes": NODES, "per_node": PER_NODE, "missing": None, "timeout_s": 10.0},
            "missing": {"nodes": NODES, "per_node": PER_NODE,
                        "missing": int(rng.integers(1, NODES * PER_NODE)),
                        "timeout_s": round(float(rng.uniform(2.5, 3.5)), 1)},
            "bad_rank": int(rng.integers(4, 9))}


# not measured: the reference joins in a fraction of a second, and a limit ten times that would
# cut short every rendezvous that never completes (ranks claiming one rank: each gives up after
# the job's 10 s) into a bare timeout, with no outcome to judge or to name the bug by
@graded(points=2, cases=join_cases, timeout=60, measured=False)
def test_whole_job_joins(rec, cases):
    job = cases["all"]
    outcomes = run_jobs([job])[0]
    record_job(rec, f"{NODES} x {PER_NODE} job, all ranks start", job, outcomes)
    # a RANK past WORLD_SIZE: dist_env_from's ValueError, before anything connects
    environ = {**job_environ(0, NODES, PER_NODE, 29500), "RANK": str(cases["bad_rank"])}
    rec.raises("RANK >= WORLD_SIZE: raises", clean_call, join_process_group, environ, 1.0)


@graded(points=2, cases=join_cases, timeout=60)
def test_missing_rank_times_out(rec, cases):
    job = cases["missing"]
    outcomes = run_jobs([job])[0]
    record_job(rec, f"{NODES} x {PER_NODE} job, rank {job['missing']} never starts", job,
               outcomes)
