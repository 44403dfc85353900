"""Task 1 — dist_env_from: read RANK, WORLD_SIZE and the rest the way torchrun exports them."""

import numpy as np
from common import clean_call, record_env

from autograder.harness import graded
from ddp import dist_env_from


def torchrun_env(rng: np.random.Generator) -> dict:
    """What torchrun --nnodes=N --nproc-per-node=P gives one worker (plus unrelated noise)."""
    nnodes, nproc = int(rng.integers(1, 5)), int(rng.integers(1, 9))
    node, local = int(rng.integers(0, nnodes)), int(rng.integers(0, nproc))
    return {
        "RANK": str(node * nproc + local), "WORLD_SIZE": str(nnodes * nproc),
        "LOCAL_RANK": str(local), "LOCAL_WORLD_SIZE": str(nproc),
        "GROUP_RANK": str(node), "ROLE_RANK": str(node * nproc + local),
        "MASTER_ADDR": str(rng.choice(["127.0.0.1", "node-0.cluster", "10.1.2.3"])),
        "MASTER_PORT": str(rng.choice([1, 29500, 29400 + int(rng.integers(0, 100)), 65535])),
        "TORCHELASTIC_RUN_ID": "none", "PATH": "/usr/bin",
    }


def valid_cases(rng: np.random.Generator) -> list:
    return [torchrun_env(rng) for _ in range(8)]


def broken_cases(rng: np.random.Generator) -> dict:
    """A drawn good environment, and that environment with one edit each: (what is wrong, the
    environment)."""
    nnodes, nproc = int(rng.integers(2, 5)), int(rng.integers(2, 9))
    node, local = int(rng.integers(0, nnodes)), int(rng.integers(0, nproc))
    world = nnodes * nproc
    good = {"RANK": str(node * nproc + local), "WORLD_SIZE": str(world), "LOCAL_RANK": str(local),
            "LOCAL_WORLD_SIZE": str(nproc), "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": str(int(rng.integers(1024, 65536)))}
    edits = [
        {"RANK": None}, {"WORLD_SIZE": None}, {"LOCAL_RANK": None},
        {"LOCAL_WORLD_SIZE": None}, {"MASTER_ADDR": None}, {"MASTER_PORT": None},
        {"MASTER_ADDR": ""}, {"RANK": ""}, {"WORLD_SIZE": "  "}, {"MASTER_ADDR": "  "},
        {"RANK": "one"}, {"WORLD_SIZE": f"{world}.0"}, {"MASTER_PORT": "http"},
        {"MASTER_PORT": "0"}, {"MASTER_PORT": "65536"},
        {"RANK": str(world)}, {"RANK": str(world + int(rng.integers(1, 9)))},
        {"LOCAL_RANK": str(nproc)}, {"RANK": "-1"}, {"WORLD_SIZE": "0"},
    ]
    cases = []
    for edit in edits:
        env = {k: v for k, v in good.items() if edit.get(k, "") is not None}
        env.update({k: v for k, v in edit.items() if v is not None})
        (key, value), = edit.items()
        cases.append({"why": f"{key} missing" if value is None else f"{key}={value!r}",
                      "environ": env})
    return {"good": good, "broken": cases}


@graded(points=3, cases=valid_cases)
def test_reads_torchrun_environment(rec, cases):
    for i, environ in enumerate(cases):
        record_env(rec, i, environ)


@graded(points=3, cases=broken_cases)
def test_rejects_broken_environment(rec, cases):
    """ValueError for each broken environment, and the right fields for the good one they were
    edited from (raising everywhere earns nothing)."""
    for i, c in enumerate(cases["broken"]):
        rec.raises(f"broken[{i}] {c['why']}: raises", clean_call, dist_env_from, c["environ"])
    record_env(rec, "good", cases["good"])
