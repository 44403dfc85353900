"""Task 6 (hidden): join_process_group. The master (rank 0) missing, another rank missing with
another timeout, rank 0 starting last, and a job of a drawn shape on several machines (2 or 3
nodes of 1 or 2 processes): all-or-nothing from every rank."""

import numpy as np
from common import record_job, run_jobs

from autograder.harness import graded


def hidden_cases(rng: np.random.Generator) -> dict:
    return {
        # rank 0 starts last, 1 s after the others: they wait for its store, then all join
        "late_master": {"nodes": 2, "per_node": 2, "missing": None, "timeout_s": 10.0,
                        "delays": [1.0, 0.0, 0.0, 0.0]},
        # the shape drawn: which ranks join, with which numbers, differs from set to set
        "three_nodes": {"nodes": int(rng.integers(2, 4)), "per_node": int(rng.integers(1, 3)),
                        "missing": None, "timeout_s": 10.0},
        # nothing listens at MASTER_ADDR:MASTER_PORT: torch's own client retries past 2x
        "no_master": {"nodes": 2, "per_node": 2, "missing": 0,
                      "timeout_s": round(float(rng.uniform(2.5, 3.5)), 1)},
        "no_worker": {"nodes": 3, "per_node": 1, "missing": int(rng.integers(1, 3)),
                      "timeout_s": round(float(rng.uniform(2.0, 3.0)), 1)},
    }


@graded(points=2, cases=hidden_cases, timeout=60)
def test_late_master_and_three_nodes_join(rec, cases):
    jobs = [cases["late_master"], cases["three_nodes"]]
    late, three = run_jobs(jobs)
    record_job(rec, "2 x 2 job, rank 0 starts 1 s late", jobs[0], late)
    record_job(rec, "{nodes} x {per_node} job, all ranks start".format(**jobs[1]), jobs[1], three)


@graded(points=2, cases=hidden_cases, timeout=60)
def test_missing_master_or_worker_times_out(rec, cases):
    jobs = [cases["no_master"], cases["no_worker"]]
    no_master, no_worker = run_jobs(jobs)
    record_job(rec, "2 x 2 job, rank 0 never starts", jobs[0], no_master)
    record_job(rec, f"3 x 1 job, rank {jobs[1]['missing']} never starts", jobs[1], no_worker)
