"""Task 4 — MiniDDP and train_step, run by real processes (gloo over 127.0.0.1).

One start of the workers serves every test of this file: `run_battery` starts WORLD_SIZE
processes once (forked on Linux), each runs every section below on its rank and writes each
section's results to a temporary folder; each graded test records its own section. For each
section the ranks meet in a fresh process group through a FileStore in that folder (no port to
pick) and talk gloo over loopback. Every wait has a deadline (PG_TIMEOUT_S per collective,
BATTERY_DEADLINE_S for everything), so a broken submission fails in seconds and a hanging one
costs the sections it hangs in, never the grader.
"""

import builtins
import datetime
import itertools
import json
import multiprocessing as mp
import os
import pickle
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np
import torch
import torch.distributed as dist
from torch import nn

from autograder.harness import graded
from ddp import MiniDDP, ShardedSampler, train_step

WORLD_SIZE = 2
PG_TIMEOUT_S = 10  # a rank stuck in a collective (or waiting for a peer) raises after this
BATTERY_DEADLINE_S = 40  # all ranks, all sections (about 1 s when forked, 5 s when not)
TEST_TIMEOUT_S = 90
STEPS, MICRO_BATCHES, ROWS_PER_MICRO = 2, 3, 2
D_IN, D_HIDDEN, D_OUT = 3, 4, 2
SAMPLER_LEN, SAMPLER_EPOCHS = 7, 3  # 7 rows over 2 ranks: one padded index per epoch


# ---------------------------------------------------------------- inputs (golden time only)
def battery_cases(rng: np.random.Generator) -> dict:
    # Every test of this file gets these same inputs (a fixed seed, not the per-test rng),
    # so one start of the worker processes serves them all.
    rng = np.random.default_rng(20240606)
    rows = WORLD_SIZE * MICRO_BATCHES * ROWS_PER_MICRO  # one global batch per step

    def init() -> dict:  # one rank's own initial weights: ranks start out different
        shapes = {"fc1.weight": (D_HIDDEN, D_IN), "fc1.bias": (D_HIDDEN,),
                  "fc2.weight": (D_OUT, D_HIDDEN), "fc2.bias": (D_OUT,),
                  "frozen.weight": (D_HIDDEN, D_IN), "frozen.bias": (D_HIDDEN,),
                  "unused.weight": (D_OUT, D_HIDDEN), "unused.bias": (D_OUT,),
                  "shift": (D_IN,)}
        return {k: rng.normal(size=s) for k, s in shapes.items()}

    return {
        "key": f"public-world{WORLD_SIZE}",
        "init": [init() for _ in range(WORLD_SIZE)],
        "x": rng.normal(size=(STEPS, rows, D_IN)),
        "y": rng.normal(size=(STEPS, rows, D_OUT)),
        "lr": 0.1,
        "momentum": 0.9,
        "sampler_seed": int(rng.integers(0, 1000)),
    }


# ---------------------------------------------------------------- the model every rank trains
class Net(nn.Module):
    """A two-layer MLP; with extras, also a frozen layer, a layer forward never uses, a buffer."""

    def __init__(self, weights: dict, extras: bool):
        super().__init__()
        self.extras = extras
        self.fc1, self.fc2 = nn.Linear(D_IN, D_HIDDEN), nn.Linear(D_HIDDEN, D_OUT)
        if extras:
            self.frozen = nn.Linear(D_IN, D_HIDDEN).requires_grad_(False)
            self.unused = nn.Linear(D_HIDDEN, D_OUT)
            self.register_buffer("shift", torch.zeros(D_IN))
        self.double()
        state = {k: torch.tensor(v) for k, v in weights.items() if k in self.state_dict()}
        self.load_state_dict(state)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.extras:
            return self.fc2(torch.tanh(self.fc1(x + self.shift) + self.frozen(x)))
        return self.fc2(torch.tanh(self.fc1(x)))


class SGD:
    """torch.optim.SGD's update (momentum buffer starts at the first gradient), kept here
    because constructing torch.optim.SGD the first time imports seconds of torch._dynamo."""

    def __init__(self, params, lr: float, momentum: float = 0.0):
        self.params, self.lr, self.momentum = list(params), lr, momentum
        self.buffers: list = [None] * len(self.params)

    @torch.no_grad()
    def step(self) -> None:
        for i, p in enumerate(self.params):
            if p.grad is not None:
                b = self.buffers[i]
                self.buffers[i] = b = p.grad.clone() if b is None else b * self.momentum + p.grad
                p -= self.lr * b

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None


def mse(out: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return ((out - target) ** 2).mean()


def shard(t: np.ndarray, rank: int, world_size: int) -> torch.Tensor:
    """This rank's rows of a global batch: rank, rank + world_size, ..."""
    return torch.tensor(t[rank::world_size])


def params(net: nn.Module) -> dict:
    return {f"param.{k}": v.detach().numpy().copy() for k, v in net.state_dict().items()}


def grads(net: nn.Module) -> dict:
    # An unused parameter may keep grad None or get a zero gradient: both are right.
    return {f"grad.{k}": (np.zeros(tuple(p.shape)) if p.grad is None else p.grad.numpy().copy())
            for k, p in net.named_parameters() if p.requires_grad}


# ---------------------------------------------------------------- sections (run on every rank)
def section_broadcast(rank: int, ws: int, c: dict) -> dict:
    net = Net(c["init"][rank], extras=True)  # every rank starts from its own weights
    MiniDDP(net)
    return params(net)  # ... and must now hold rank 0's, buffers included


def section_average(rank: int, ws: int, c: dict) -> dict:
    net = Net(c["init"][0], extras=False)
    model = MiniDDP(net)
    mse(model(shard(c["x"][0], rank, ws)), shard(c["y"][0], rank, ws)).backward()
    return {**grads(net), "allreduce_calls": model.allreduce_calls}


def section_training(rank: int, ws: int, c: dict) -> dict:
    net = Net(c["init"][rank], extras=False)
    model = MiniDDP(net)
    opt = SGD(net.parameters(), lr=c["lr"])
    for step in range(STEPS):
        mse(model(shard(c["x"][step], rank, ws)), shard(c["y"][step], rank, ws)).backward()
        opt.step()
        opt.zero_grad()
    return params(net)


def section_no_sync(rank: int, ws: int, c: dict) -> dict:
    net = Net(c["init"][0], extras=False)
    model = MiniDDP(net)
    x, y = shard(c["x"][0], rank, ws), shard(c["y"][0], rank, ws)
    half = len(x) // 2
    out = {}
    with model.no_sync():
        mse(model(x[:half]), y[:half]).backward()
    out.update({f"local.{k}": v for k, v in grads(net).items()})
    out["calls_after_no_sync"] = model.allreduce_calls
    mse(model(x[half:]), y[half:]).backward()
    out.update({f"synced.{k}": v for k, v in grads(net).items()})
    out["calls_after_sync"] = model.allreduce_calls
    return out


def section_train_step(rank: int, ws: int, c: dict) -> dict:
    net = Net(c["init"][rank], extras=False)
    model = MiniDDP(net)
    opt = SGD(net.parameters(), lr=c["lr"], momentum=c["momentum"])
    losses = []
    for step in range(STEPS):
        x, y = shard(c["x"][step], rank, ws), shard(c["y"][step], rank, ws)
        micro = list(zip(x.chunk(MICRO_BATCHES), y.chunk(MICRO_BATCHES)))
        losses.append(float(train_step(model, opt, mse, micro)))
    return {**params(net), "losses": np.array(losses), "allreduce_calls": model.allreduce_calls}


def section_frozen_unused(rank: int, ws: int, c: dict) -> dict:
    net = Net(c["init"][rank], extras=True)
    model = MiniDDP(net)
    mse(model(shard(c["x"][0], rank, ws)), shard(c["y"][0], rank, ws)).backward()
    out = {**grads(net), "frozen_grad_is_none": net.frozen.weight.grad is None}
    net.zero_grad()
    opt = SGD(net.parameters(), lr=c["lr"])
    x, y = shard(c["x"][1], rank, ws), shard(c["y"][1], rank, ws)
    train_step(model, opt, mse, list(zip(x.chunk(2), y.chunk(2))))
    return {**out, **params(net), "allreduce_calls": model.allreduce_calls}


def section_sampler(rank: int, ws: int, c: dict) -> dict:
    sampler = ShardedSampler(SAMPLER_LEN, ws, rank, shuffle=True, seed=c["sampler_seed"])
    out = {"len": len(sampler)}
    for epoch in range(SAMPLER_EPOCHS):
        sampler.set_epoch(epoch)
        gathered = [None] * ws  # every rank's shard of this epoch, gathered on every rank
        dist.all_gather_object(gathered, [int(i) for i in sampler])
        if rank == 0:
            out[f"epoch{epoch}.shards"] = gathered
            flat = np.asarray([i for s in gathered for i in s], dtype=np.int64)
            out[f"epoch{epoch}.reads_per_index"] = np.bincount(flat, minlength=SAMPLER_LEN).tolist()
    out["again_without_set_epoch"] = [int(i) for i in sampler]
    return out


SECTIONS = {  # in this order: a section that hangs costs the ones after it
    "sampler": section_sampler,
    "broadcast": section_broadcast,
    "average": section_average,
    "training": section_training,
    "no_sync": section_no_sync,
    "frozen_unused": section_frozen_unused,
    "train_step": section_train_step,
}


# ---------------------------------------------------------------- the worker processes
def worker_main(rank: int, world_size: int, workdir: str) -> None:
    """One rank: run every section in a process group of its own (a hang or an exception
    spoils only its section), writing each section's result as soon as it has one."""
    torch.set_num_threads(1)
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # loopback only, also in a sandbox
    with open(os.path.join(workdir, "cases.pkl"), "rb") as f:
        cases = pickle.load(f)  # inside the sandbox, between our own processes
    for name, section in SECTIONS.items():
        # A FileStore per section: no port to race for, and a fresh group after a timeout.
        store = dist.FileStore(os.path.join(workdir, f"store-{name}"), world_size)
        dist.init_process_group("gloo", store=store, rank=rank, world_size=world_size,
                                timeout=datetime.timedelta(seconds=PG_TIMEOUT_S))
        try:
            out = {"raised": None, "values": section(rank, world_size, cases)}
        except Exception as e:  # noqa: BLE001 - the type name is recorded
            frames = traceback.extract_tb(e.__traceback__)  # the last one outside torch
            where = ([f for f in frames if "site-packages" not in f.filename] or frames)[-1]
            out = {"raised": type(e).__name__, "message": f"{str(e)[:300]} (at "
                   f"{os.path.basename(where.filename)}:{where.lineno})"}
        dist.destroy_process_group()
        path = os.path.join(workdir, f"rank{rank}-{name}.pkl")
        with open(path + ".tmp", "wb") as f:
            pickle.dump(out, f)
        os.replace(path + ".tmp", path)  # appears only once complete


def _forked_worker(rank: int, world_size: int, workdir: str) -> None:
    try:
        worker_main(rank, world_size, workdir)
    finally:
        os._exit(0)  # never return into the parent's copy of pytest


# Elsewhere than Linux, a fresh interpreter per rank re-runs this file as "__ddp_worker__".
_BOOT = ("import sys, json, runpy; sys.path[:0] = json.loads(sys.argv[2]); "
         "runpy.run_path(sys.argv[1], run_name='__ddp_worker__')")


def _start(rank: int, workdir: str):
    """Linux: fork, which is fast (torch is already imported) and safe here: this process
    holds no process group and starts no thread. Elsewhere (macOS, where forking a process
    that imported torch can crash): a fresh interpreter that runs this very file."""
    if sys.platform == "linux":
        p = mp.get_context("fork").Process(target=_forked_worker,
                                           args=(rank, WORLD_SIZE, workdir), daemon=True)
        p.start()
        return p
    path = json.dumps([p for p in sys.path if p])
    return subprocess.Popen([sys.executable, "-I", "-B", "-c", _BOOT, os.path.abspath(__file__),
                             path, str(rank), str(WORLD_SIZE), workdir], stdin=subprocess.DEVNULL)


def _alive(p) -> bool:
    return p.is_alive() if isinstance(p, mp.process.BaseProcess) else p.poll() is None


def _stop(p) -> None:
    if _alive(p):
        p.kill()
    if isinstance(p, mp.process.BaseProcess):
        p.join(timeout=10)
    else:
        p.wait(timeout=10)


_BATTERY: dict = {}


def run_battery(cases: dict) -> list[dict]:
    """Every rank's section results, rank order; run once per process and cached (a failure
    too: a submission that hangs costs one deadline, not one per test)."""
    if cases["key"] not in _BATTERY:
        try:
            _BATTERY[cases["key"]] = _run_workers(cases)
        except Exception as e:  # noqa: BLE001 - re-raised by every test of this file
            _BATTERY[cases["key"]] = e
    result = _BATTERY[cases["key"]]
    if isinstance(result, Exception):
        raise result
    return result


def _run_workers(cases: dict) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="ddp-") as workdir:
        with open(os.path.join(workdir, "cases.pkl"), "wb") as f:
            pickle.dump(cases, f)
        procs = [_start(rank, workdir) for rank in range(WORLD_SIZE)]
        deadline = time.monotonic() + BATTERY_DEADLINE_S
        try:
            while time.monotonic() < deadline and any(_alive(p) for p in procs):
                time.sleep(0.02)
        finally:
            for p in procs:
                _stop(p)
        late = {"raised": "DeadlineExceeded",
                "message": f"no result within the {BATTERY_DEADLINE_S} s all sections share"}
        results = [{} for _ in range(WORLD_SIZE)]
        for rank, name in itertools.product(range(WORLD_SIZE), SECTIONS):
            path = os.path.join(workdir, f"rank{rank}-{name}.pkl")
            if os.path.exists(path):
                with open(path, "rb") as f:
                    results[rank][name] = pickle.load(f)
            else:
                results[rank][name] = late
    return results


def record(rec, name: str, cases: dict) -> None:
    """Record section `name` of every rank: the exception it raised (None), then its values;
    then re-raise the first rank's exception, so that its message reaches the report."""
    errors = []
    for rank, out in enumerate(run_battery(cases)):
        section = out[name]
        rec.exact(f"rank{rank}.raised", section["raised"])
        if section["raised"]:
            errors.append(f"rank {rank}: {section['raised']}: {section['message']}")
        for key, value in section.get("values", {}).items():
            if isinstance(value, np.ndarray) and value.dtype.kind == "f":
                rec.close(f"rank{rank}.{key}", value, atol=1e-9, rtol=1e-7)
            else:
                rec.exact(f"rank{rank}.{key}", value)
    if errors:  # raised again as the first rank's type where that is a builtin exception
        kind = getattr(builtins, errors[0].split(": ")[1], None)
        if not (isinstance(kind, type) and issubclass(kind, Exception)):
            kind = RuntimeError
        try:
            error = kind("; ".join(errors))
        except Exception:  # noqa: BLE001 - a builtin with a special signature
            error = RuntimeError("; ".join(errors))
        raise error


# ---------------------------------------------------------------- graded tests
@graded(points=3, cases=battery_cases, timeout=TEST_TIMEOUT_S)
def test_broadcast_at_construction(rec, cases):
    """Ranks start from different weights; after MiniDDP(net) all hold rank 0's (and buffers)."""
    record(rec, "broadcast", cases)


@graded(points=3, cases=battery_cases, timeout=TEST_TIMEOUT_S)
def test_gradients_are_averaged(rec, cases):
    """After one backward on each rank's shard, every rank holds the full-batch gradient."""
    record(rec, "average", cases)


@graded(points=3, cases=battery_cases, timeout=TEST_TIMEOUT_S)
def test_training_matches_single_process(rec, cases):
    """SGD steps on shards equal single-process full-batch SGD from rank 0's weights."""
    record(rec, "training", cases)


@graded(points=3, cases=battery_cases, timeout=TEST_TIMEOUT_S)
def test_no_sync_accumulates_locally(rec, cases):
    """Inside no_sync() gradients stay local; the next backward averages the accumulated sum."""
    record(rec, "no_sync", cases)


@graded(points=4, cases=battery_cases, timeout=TEST_TIMEOUT_S)
def test_train_step_accumulation(rec, cases):
    """train_step over micro-batches equals one large batch, with one all-reduce per step."""
    record(rec, "train_step", cases)


@graded(points=2, cases=battery_cases, timeout=TEST_TIMEOUT_S)
def test_frozen_and_unused_parameters(rec, cases):
    """A frozen layer and a layer forward never uses do not break the synchronization."""
    record(rec, "frozen_unused", cases)


@graded(points=2, cases=battery_cases, timeout=TEST_TIMEOUT_S)
def test_sampler_in_process_group(rec, cases):
    """Each real rank's ShardedSampler: every index once per epoch, a new order per epoch."""
    record(rec, "sampler", cases)


if __name__ == "__ddp_worker__":  # this file, re-run by _BOOT in a worker process
    worker_main(int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
