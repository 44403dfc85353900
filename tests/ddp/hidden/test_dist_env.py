"""Task 1 (hidden) — dist_env_from on large multi-node jobs and more broken environments."""

import numpy as np
from common import clean_call, record_env

from autograder.harness import graded
from ddp import dist_env_from


def multinode_cases(rng: np.random.Generator) -> list:
    cases = []
    for nnodes, nproc in ((1, 1), (2, 8), (16, 8), (1024, 8), (3, 4)):
        node = int(rng.integers(0, nnodes))
        for local in (0, int(rng.integers(0, nproc)), nproc - 1):
            cases.append({
                "RANK": str(node * nproc + local), "WORLD_SIZE": str(nnodes * nproc),
                "LOCAL_RANK": str(local), "LOCAL_WORLD_SIZE": str(nproc),
                "MASTER_ADDR": f"trainer-{int(rng.integers(0, 100))}.internal",
                "MASTER_PORT": str(int(rng.integers(1024, 65536))),
                "GROUP_RANK": str(node), "TORCHELASTIC_RESTART_COUNT": "0",
            })
    return cases


GOOD = {"RANK": "13", "WORLD_SIZE": "16", "LOCAL_RANK": "5", "LOCAL_WORLD_SIZE": "8",
        "MASTER_ADDR": "node-0", "MASTER_PORT": "29400"}


def broken_cases(rng: np.random.Generator) -> list:
    good = GOOD
    edits = [("RANK", "16"), ("RANK", "17"), ("LOCAL_RANK", "8"), ("LOCAL_RANK", "-1"),
             ("LOCAL_WORLD_SIZE", "0"), ("LOCAL_WORLD_SIZE", ""), ("MASTER_PORT", "-5"),
             ("MASTER_PORT", "99999"), ("MASTER_PORT", "29400.0"), ("RANK", "1e1"),
             ("LOCAL_RANK", "five")]  # not MASTER_ADDR="   ": whether blank counts as empty is free
    return [{"why": f"{k}={v!r}", "environ": {**good, k: v}} for k, v in edits]


@graded(points=2, cases=multinode_cases)
def test_reads_multinode_environment(rec, cases):
    for i, environ in enumerate(cases):
        record_env(rec, i, environ)


@graded(points=2, cases=broken_cases)
def test_rejects_more_broken_environments(rec, cases):
    for i, c in enumerate(cases):
        rec.raises(f"broken[{i}] {c['why']}: raises", clean_call, dist_env_from, c["environ"])
    record_env(rec, "good", GOOD)
