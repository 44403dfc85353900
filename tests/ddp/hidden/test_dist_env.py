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


def broken_cases(rng: np.random.Generator) -> dict:
    """A valid environment of a drawn job, and that environment with one variable broken."""
    per_node = int(rng.integers(2, 9))
    world = per_node * int(rng.integers(2, 9))
    local = int(rng.integers(per_node))
    port = int(rng.integers(1024, 65536))
    good = {"RANK": str(int(rng.integers(world))), "WORLD_SIZE": str(world),
            "LOCAL_RANK": str(local), "LOCAL_WORLD_SIZE": str(per_node),
            "MASTER_ADDR": f"node-{int(rng.integers(100))}", "MASTER_PORT": str(port)}
    edits = [("RANK", str(world)), ("RANK", str(world + int(rng.integers(1, 9)))),
             ("LOCAL_RANK", str(per_node)), ("LOCAL_RANK", "-1"),
             ("LOCAL_WORLD_SIZE", "0"), ("LOCAL_WORLD_SIZE", ""), ("MASTER_PORT", "-5"),
             ("MASTER_PORT", str(int(rng.integers(65536, 100_000)))),
             ("MASTER_PORT", f"{port}.0"), ("RANK", "1e1"),
             ("LOCAL_RANK", "five")]  # not MASTER_ADDR="   ": whether blank counts as empty is free
    return {"good": good,
            "broken": [{"why": f"{k}={v!r}", "environ": {**good, k: v}} for k, v in edits]}


@graded(points=2, cases=multinode_cases)
def test_reads_multinode_environment(rec, cases):
    for i, environ in enumerate(cases):
        record_env(rec, i, environ)


@graded(points=2, cases=broken_cases)
def test_rejects_more_broken_environments(rec, cases):
    for i, c in enumerate(cases["broken"]):
        rec.raises(f"broken[{i}] {c['why']}: raises", clean_call, dist_env_from, c["environ"])
    record_env(rec, "good", cases["good"])
