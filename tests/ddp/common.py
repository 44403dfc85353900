"""Shared by the ddp public and hidden tests (and shipped with the public ones): the fields of
Task 1, the sampler helpers of Task 2, the batch check of Task 3, the battery of Task 4 —
the worker processes, the model every rank trains and the sections each rank runs — and the
jobs of Task 6, whose ranks join through join_process_group. Inputs and helpers only: no
expected value lives here.
"""

import builtins
import datetime
import json
import multiprocessing as mp
import os
import pickle
import random
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.distributed as dist
from torch import nn

from autograder.harness import (  # clean_call's primitives: bound before ddp's import
    clean_call,
    exception_kind,
    student_where,
)
from ddp import (  # noqa: E402 (after the bindings above, on purpose)
    MiniDDP,
    ShardedSampler,
    dist_env_from,
    global_batch_size,
    join_process_group,
    tokens_per_step,
    train_step,
)

# ================================================================ Task 1: dist_env_from
FIELDS = ("rank", "world_size", "local_rank", "local_world_size", "master_addr", "master_port")



def record_env(rec, i: int | str, environ: dict) -> None:
    """Record every field of dist_env_from(environ) as env[i].<field>."""
    env = clean_call(dist_env_from, dict(environ))
    for name in FIELDS:
        rec.exact(f"env[{i}].{name}", getattr(env, name))


# ================================================================ Task 2: ShardedSampler
def label(c: dict) -> str:
    """A case as text, in a fixed order (stored inputs come back with their keys sorted)."""
    return (f"ShardedSampler({c['n']}, {c['replicas']}, rank, shuffle={c['shuffle']}, "
            f"seed={c['seed']}, drop_last={c['drop_last']}) at epoch {c['epoch']}")


def shards(c: dict) -> list:
    """Every rank's indices of case c at its epoch, rank order."""
    out = []
    for rank in range(c["replicas"]):
        s = ShardedSampler(c["n"], c["replicas"], rank, shuffle=c["shuffle"], seed=c["seed"],
                           drop_last=c["drop_last"])
        s.set_epoch(c["epoch"])
        out.append([int(i) for i in s])
    return out


def reads_per_index(per_rank: list, n: int) -> list:
    """How many times each of the n indices is read over all ranks' shards."""
    flat = [i for shard in per_rank for i in shard]
    return np.bincount(np.asarray(flat, dtype=np.int64), minlength=n).tolist()


# ================================================================ Task 3: the global batch
def record_global_batch(rec, i: int | str, c: dict) -> None:
    """Record global_batch_size and tokens_per_step of case c, named by their arguments."""
    b, a, dp, t = c["micro_batch"], c["grad_accum"], c["dp"], c["seq_len"]
    rec.exact(f"case[{i}] global_batch_size({b}, {a}, {dp})",
              clean_call(global_batch_size, b, a, dp))
    rec.exact(f"case[{i}] tokens_per_step({b}, {a}, {dp}, {t})",
              clean_call(tokens_per_step, b, a, dp, t))


# ================================================================ Task 4: the battery
# One battery serves every test of a test file: `Battery.run` runs its sections once, each rank
# writing its result per section to a temporary folder, and each graded test records its own
# section. The ranks meet through a FileStore in that folder (no port to pick) and talk gloo over
# loopback. Two ways to run, one result:
#   in turn: world_size processes (forked on Linux: milliseconds) run every section one after
#     the other in one process group, a barrier between sections, each on objects of its own
#     (a fresh Net, MiniDDP and optimizer). A fork of a process that imported torch costs
#     ~10 ms of CPU, so this is the cheap way: world_size processes, not sections x world_size.
#   apart: each section on world_size fresh processes and a process group of its own, all
#     sections at once; a rank that raises, crashes or hangs costs only its section.
# Sections run in turn until the first trouble: a rank raising, a rank process ending before its
# last result, or a section not finished within SECTION_STALL_S. From that section on they run
# apart, so whatever went wrong is recorded exactly as if every section had run apart (a section
# that raised in turn runs again, fresh). Every wait has a deadline (PG_TIMEOUT_S per collective,
# BATTERY_DEADLINE_S for both ways together), so a broken submission fails in seconds and a
# hanging one costs the sections it hangs in, never the grader.
PG_TIMEOUT_S = 10  # a rank stuck in a collective (or waiting for a peer) raises after this
BATTERY_DEADLINE_S = 40  # all ranks, all sections, both ways (under 1 s when forked)
SECTION_STALL_S = 5  # in turn: a section not done on every rank by then runs apart
IN_TURN = "inturn"  # the tag of the in-turn run's results and store

Section = Callable[["Battery", int, dict], dict]  # (battery, rank, cases) -> this rank's values


@dataclass(frozen=True)
class Battery:
    """The sizes of one test file's battery, and its own sections besides the shared ones.
    The test file names it BATTERY: elsewhere than Linux a worker re-runs that file for it."""

    test_file: str
    name: str  # "public" or "hidden": names the inputs, and the results cached for them
    world_size: int
    steps: int
    micro_batches: int
    rows_per_micro: int
    d_in: int
    d_hidden: int
    d_out: int
    sampler_len: int
    sampler_epochs: int
    extra_sections: dict[str, Section] = field(default_factory=dict)

    @property
    def sections(self) -> dict[str, Section]:
        """The shared ones, the test file's own, and train_step, which uses all of it (they all
        run at once, each on its own processes, within the deadline they share)."""
        shared = {k: v for k, v in SECTIONS.items() if k != "train_step"}
        return {**shared, **self.extra_sections, "train_step": SECTIONS["train_step"]}

    # ------------------------------------------------------------ inputs (golden time only)
    def cases(self, seed: int) -> dict:
        """Every test of the file gets these same inputs (a fixed seed, not the per-test rng),
        so one start of the worker processes serves them all."""
        rng = np.random.default_rng(seed)
        rows = self.world_size * self.micro_batches * self.rows_per_micro  # one global batch
        shapes = {"fc1.weight": (self.d_hidden, self.d_in), "fc1.bias": (self.d_hidden,),
                  "fc2.weight": (self.d_out, self.d_hidden), "fc2.bias": (self.d_out,),
                  "frozen.weight": (self.d_hidden, self.d_in), "frozen.bias": (self.d_hidden,),
                  "unused.weight": (self.d_out, self.d_hidden), "unused.bias": (self.d_out,),
                  "shift": (self.d_in,)}

        def init() -> dict:  # one rank's own initial weights: ranks start out different
            return {k: rng.normal(size=s) for k, s in shapes.items()}

        cases = {
            "key": f"{self.name}-world{self.world_size}",
            "init": [init() for _ in range(self.world_size)],
            "x": rng.normal(size=(self.steps, rows, self.d_in)),
            "y": rng.normal(size=(self.steps, rows, self.d_out)),
            "lr": 0.1,
            "momentum": 0.9,
            "sampler_seed": int(rng.integers(0, 1000)),
        }
        # each rank's own buffers of BufferNet (drawn last: the draws above stay as they were)
        cases["buffers"] = [{
            "body.1.running_mean": rng.normal(size=self.d_hidden),
            "body.1.running_var": rng.uniform(0.5, 2.0, size=self.d_hidden),
            "body.1.num_batches_tracked": int(rng.integers(1, 1000)),
            "body.offset": rng.normal(size=self.d_hidden),
            "shift": rng.normal(size=self.d_in), "scale": rng.uniform(0.5, 1.5, size=self.d_in),
        } for _ in range(self.world_size)]
        return cases

    # ------------------------------------------------------------ the worker processes
    def worker_main(self, rank: int, workdir: str, names: list[str], tag: str) -> None:
        """One rank running the sections `names` in turn, in one process group of its own
        (store and results tagged `tag`): each section's result is written as soon as it has
        one; the first section that raises ends the run (the parent runs the rest apart)."""
        torch.set_num_threads(1)
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # loopback only, also in a sandbox
        with open(os.path.join(workdir, "cases.pkl"), "rb") as f:
            cases = pickle.load(f)  # inside the sandbox, between our own processes
        # A FileStore per run: no port to race for, and a fresh group for every run.
        store = dist.FileStore(os.path.join(workdir, f"store-{tag}"), self.world_size)
        for i, name in enumerate(names):
            try:
                if i == 0:
                    dist.init_process_group("gloo", store=store, rank=rank,
                                            world_size=self.world_size,
                                            timeout=datetime.timedelta(seconds=PG_TIMEOUT_S))
                out = {"raised": None, "values": self.sections[name](self, rank, cases)}
            except Exception as e:  # noqa: BLE001 - the type name is recorded
                frames = traceback.extract_tb(e.__traceback__)  # the last one outside torch
                where = ([f for f in frames if "site-packages" not in f.filename] or frames)[-1]
                out = {"raised": exception_kind(e), "message": f"{str(e)[:300]} (at "
                       f"{os.path.basename(where.filename)}:{where.lineno})",
                       "where": student_where(e, os.path.dirname(sys.modules["ddp"].__file__)),
                       "forbidden": getattr(e, "graded_forbidden", None),  # the blocker's module
                       "missing": getattr(e, "graded_missing", None)}  # a name ddp lacks
            path = _result_path(workdir, rank, name, tag)
            with open(path + ".tmp", "wb") as f:
                pickle.dump(out, f)
            os.replace(path + ".tmp", path)  # appears only once complete
            if out["raised"] or not dist.is_initialized():
                break
            # Every rank finishes this section before any starts the next (a rank outside a
            # subgroup would otherwise run ahead into the next section's collectives).
            try:
                dist.barrier()
            except Exception:  # noqa: BLE001 - a peer is gone: the parent runs the rest apart
                break
        if dist.is_initialized():
            # Stay until every rank is done: a rank that leaves early (raised, or outside a
            # subgroup) would break a peer still connecting to it, and that peer would report
            # the broken connection instead of its own result. The parent stops waiting once
            # every rank has written its result, so a peer stuck for good costs nothing here.
            try:
                dist.barrier()
            except Exception:  # noqa: BLE001 - the results are written; only the exit is left
                pass
            dist.destroy_process_group()

    def _start(self, rank: int, workdir: str, names: list[str], tag: str):
        """Linux: fork, which is fast (torch is already imported) and safe here: this process
        holds no process group and starts no thread. Elsewhere (macOS, where forking a process
        that imported torch can crash): a fresh interpreter that re-runs the test file."""
        if sys.platform == "linux":
            p = mp.get_context("fork").Process(target=_forked_worker,
                                               args=(self, rank, workdir, names, tag), daemon=True)
            p.start()
            return p
        path = json.dumps([p for p in sys.path if p])
        return subprocess.Popen([sys.executable, "-I", "-B", "-c", _BOOT,
                                 os.path.abspath(self.test_file), path, str(rank), workdir,
                                 json.dumps(names), tag], stdin=subprocess.DEVNULL)

    def run(self, cases: dict) -> list[dict]:
        """Every rank's section results, rank order; run once per process and cached (a failure
        too: a submission that hangs costs one deadline, not one per test)."""
        if cases["key"] not in _RESULTS:
            warm_up_optimizer()  # before the workers start, so the deadline never pays for it
            try:
                _RESULTS[cases["key"]] = self._run_workers(cases)
            except Exception as e:  # noqa: BLE001 - re-raised by every test of the file
                _RESULTS[cases["key"]] = e
        result = _RESULTS[cases["key"]]
        if isinstance(result, Exception):
            raise result
        return result

    def _run_workers(self, cases: dict) -> list[dict]:
        """Every section's results: in turn while that goes well, apart from the first trouble
        on (see the comment above Section); one deadline, BATTERY_DEADLINE_S, for both."""
        results: list[dict] = [{} for _ in range(self.world_size)]
        with tempfile.TemporaryDirectory(prefix="ddp-") as workdir:
            with open(os.path.join(workdir, "cases.pkl"), "wb") as f:
                pickle.dump(cases, f)
            deadline = time.monotonic() + BATTERY_DEADLINE_S
            names = list(self.sections)
            done = self._run_in_turn(workdir, names, deadline, results)
            if done < len(names):
                self._run_apart(workdir, names[done:], deadline, results)
        return results

    def _run_in_turn(self, workdir: str, names: list[str], deadline: float,
                     results: list[dict]) -> int:
        """Run `names` in turn on world_size processes; keep the results of every section that
        every rank finished without raising (into `results`) and return how many those are."""
        procs = [self._start(rank, workdir, names, IN_TURN) for rank in range(self.world_size)]
        done, since = 0, time.monotonic()
        try:
            while done < len(names):
                now = time.monotonic()
                paths = [_result_path(workdir, rank, names[done], IN_TURN)
                         for rank in range(self.world_size)]
                outs = [_read_result(p) for p in paths]
                if any(o is not None and o["raised"] for o in outs):
                    break  # this section runs again apart, where a raise costs only itself
                if all(o is not None for o in outs):
                    for rank, o in enumerate(outs):
                        results[rank][names[done]] = o
                    done, since = done + 1, now
                    continue
                if now > deadline or now - since > SECTION_STALL_S \
                        or not all(_alive(p) for p in procs):
                    break
                time.sleep(0.01)
        finally:
            for p in procs:
                _stop(p)
        return done

    def _run_apart(self, workdir: str, names: list[str], deadline: float,
                   results: list[dict]) -> None:
        """Each section of `names` at once, each on world_size fresh processes of its own (its
        own FileStore and process group: nothing is shared between sections but the deadline).
        A rank that reports nothing is recorded as having raised DeadlineExceeded (still
        running at the deadline) or ChildProcessError (it died)."""
        procs: dict[str, list] = {}
        try:
            for name in names:
                procs[name] = [self._start(rank, workdir, [name], name)
                               for rank in range(self.world_size)]

            def waiting() -> bool:  # a rank still alive without its result
                return any(_alive(p) and not os.path.exists(_result_path(workdir, rank, name,
                                                                         name))
                           for name, ranks in procs.items() for rank, p in enumerate(ranks))

            while time.monotonic() < deadline and waiting():
                time.sleep(0.02)
            running = {name: [_alive(p) for p in ranks] for name, ranks in procs.items()}
        finally:
            for ranks in procs.values():
                for p in ranks:
                    _stop(p)
        for name, ranks in procs.items():
            for rank, p in enumerate(ranks):
                out = _read_result(_result_path(workdir, rank, name, name))
                if out is not None:
                    results[rank][name] = out
                elif running[name][rank]:
                    results[rank][name] = {
                        "raised": "DeadlineExceeded",
                        "message": f"no result within the {BATTERY_DEADLINE_S} s all "
                                   f"sections share"}
                else:
                    results[rank][name] = {
                        "raised": "ChildProcessError",
                        "message": f"the rank's process exited (code {_exit_code(p)}) "
                                   f"before reporting its result"}

    def record(self, rec, name: str, cases: dict, prefix: str = "") -> None:
        """Record section `name` of every rank (observation names start with `prefix`): the
        exception it raised (None), then its values; then re-raise the first rank's exception,
        so that its message reaches the report, with the student frame it raised in (the rank's
        `where`: the report names that function, file and line)."""
        errors, where, forbidden, missing = [], None, [], []
        for rank, out in enumerate(self.run(cases)):
            section = out[name]
            rec.exact(f"{prefix}rank{rank}.raised", section["raised"])
            if section["raised"]:
                errors.append(f"rank {rank}: {section['raised']}: {section['message']}")
                where = where or section.get("where")
                forbidden.append(section.get("forbidden"))
                missing.append(section.get("missing"))
            for key, value in section.get("values", {}).items():
                if isinstance(value, np.ndarray) and value.dtype.kind == "f":
                    # contract: the tests' model is float64 (Net.double()) and SPEC 5.6 fixes
                    # the average; only the summation order is free (~1e-16 relative)
                    rec.close(f"{prefix}rank{rank}.{key}", value, atol=1e-9, rtol=1e-7)
                else:
                    rec.exact(f"{prefix}rank{rank}.{key}", value)
        if errors:  # raised again as the first rank's type where that is a builtin exception
            kind = getattr(builtins, errors[0].split(": ")[1], None)
            if not (isinstance(kind, type) and issubclass(kind, Exception)):
                kind = RuntimeError
            try:
                error = kind("; ".join(errors))
            except Exception:  # noqa: BLE001 - a builtin with a special signature
                error = RuntimeError("; ".join(errors))
            error.graded_where = where
            if kind is ImportError and isinstance(forbidden[0], str):
                error.graded_forbidden = forbidden[0]  # a forbidden import, as the child's own
            if kind is NotImplementedError and isinstance(missing[0], str):
                error.graded_missing = missing[0]  # a name ddp lacks, as the child's own
            raise error


_RESULTS: dict = {}  # cases["key"] -> Battery.run's results, or the exception it raised


def _result_path(workdir: str, rank: int, name: str, tag: str | None = None) -> str:
    """Where rank `rank` writes its result of section (or job) `name` in the run tagged `tag`
    (it appears only once complete)."""
    return os.path.join(workdir, f"rank{rank}-{name}" + (f"-{tag}.pkl" if tag else ".pkl"))


def _read_result(path: str) -> dict | None:
    """The result written at `path`, or None while there is none."""
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except FileNotFoundError:
        return None


def _forked_worker(battery: Battery, rank: int, workdir: str, names: list[str], tag: str) -> None:
    try:
        battery.worker_main(rank, workdir, names, tag)
    finally:
        os._exit(0)  # never return into the parent's copy of pytest


# Elsewhere than Linux, a fresh interpreter per rank re-runs the test file for its BATTERY.
_BOOT = ("import sys, json, runpy; sys.path[:0] = json.loads(sys.argv[2]); "
         "battery = runpy.run_path(sys.argv[1], run_name='__ddp_worker__')['BATTERY']; "
         "battery.worker_main(int(sys.argv[3]), sys.argv[4], json.loads(sys.argv[5]), "
         "sys.argv[6])")


def _alive(p) -> bool:
    return p.is_alive() if isinstance(p, mp.process.BaseProcess) else p.poll() is None


def _exit_code(p) -> int | None:
    return p.exitcode if isinstance(p, mp.process.BaseProcess) else p.returncode


def _stop(p) -> None:
    if _alive(p):
        p.kill()
    if isinstance(p, mp.process.BaseProcess):
        p.join(timeout=10)
    else:
        p.wait(timeout=10)


# ---------------------------------------------------------------- the model every rank trains
class Net(nn.Module):
    """A two-layer MLP of the shapes in `weights`; with extras, also a frozen layer, a layer
    forward never uses, and a buffer."""

    def __init__(self, weights: dict, extras: bool):
        super().__init__()
        d_hidden, d_in = np.shape(weights["fc1.weight"])
        d_out = np.shape(weights["fc2.weight"])[0]
        self.extras = extras
        self.fc1, self.fc2 = nn.Linear(d_in, d_hidden), nn.Linear(d_hidden, d_out)
        if extras:
            self.frozen = nn.Linear(d_in, d_hidden).requires_grad_(False)
            self.unused = nn.Linear(d_hidden, d_out)
            self.register_buffer("shift", torch.zeros(d_in))
        self.double()
        state = {k: torch.tensor(v) for k, v in weights.items() if k in self.state_dict()}
        self.load_state_dict(state)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.extras:
            return self.fc2(torch.tanh(self.fc1(x + self.shift) + self.frozen(x)))
        return self.fc2(torch.tanh(self.fc1(x)))


class BufferNet(nn.Module):
    """fc1 -> BatchNorm1d -> tanh -> fc2, with buffers of every kind a model may hold: the
    BatchNorm's running statistics inside a submodule (an integer one among them), a buffer of
    the model itself (`shift`), and non-persistent ones, which state_dict() leaves out (`scale`
    of the model, `offset` of the submodule `body`). Its parameters come from `weights` (Net's
    fc1 and fc2; the BatchNorm's affine ones keep their fixed init), its buffers from
    `buffers`, so ranks built from the same weights and their own buffers differ only in
    buffers. In eval mode the output depends on every buffer."""

    def __init__(self, weights: dict, buffers: dict):
        super().__init__()
        d_hidden, d_in = np.shape(weights["fc1.weight"])
        d_out = np.shape(weights["fc2.weight"])[0]
        self.body = nn.Sequential(nn.Linear(d_in, d_hidden), nn.BatchNorm1d(d_hidden))
        self.head = nn.Linear(d_hidden, d_out)
        self.register_buffer("shift", torch.zeros(d_in))
        self.register_buffer("scale", torch.ones(d_in), persistent=False)
        self.body.register_buffer("offset", torch.zeros(d_hidden), persistent=False)
        self.double()
        with torch.no_grad():
            for name, value in {"body.0.weight": weights["fc1.weight"],
                                "body.0.bias": weights["fc1.bias"],
                                "head.weight": weights["fc2.weight"],
                                "head.bias": weights["fc2.bias"], **buffers}.items():
                target = self.get_parameter(name) if name.endswith(("weight", "bias")) \
                    else self.get_buffer(name)
                target.copy_(torch.as_tensor(value))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.body((x + self.shift) * self.scale) + self.body.offset
        return self.head(torch.tanh(hidden))


def buffers(net: nn.Module) -> dict:
    """Every buffer of `net`, persistent or not, by its dotted name."""
    return {f"buffer.{k}": v.detach().numpy().copy() for k, v in net.named_buffers()}


def warm_up_optimizer() -> None:
    """Construct one torch.optim.SGD: the first construction imports torch._dynamo (seconds;
    far more on a loaded machine). Done here, before forking, the workers inherit the import
    and spend none of BATTERY_DEADLINE_S on it. It starts no thread, so forking stays safe."""
    torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)


# The loss every section (and train_step) uses: torch's own, so a train_step may call it by
# position or by name (input=, target=), as it may call any real loss function.
mse = nn.functional.mse_loss


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
def section_broadcast(b: Battery, rank: int, c: dict) -> dict:
    net = Net(c["init"][rank], extras=True)  # every rank starts from its own weights
    MiniDDP(net)
    return params(net)  # ... and must now hold rank 0's, buffers included


def section_buffers(b: Battery, rank: int, c: dict) -> dict:
    """Ranks whose models differ only in buffers: the same weights (rank 0's), each rank's
    own buffers; after MiniDDP every buffer is rank 0's, and so is the eval-mode output."""
    net = BufferNet(c["init"][0], c["buffers"][rank])
    MiniDDP(net)
    net.eval()
    with torch.no_grad():
        out = net(torch.tensor(c["x"][0]))
    return {**buffers(net), "eval_output": out.numpy()}


def section_average(b: Battery, rank: int, c: dict) -> dict:
    net = Net(c["init"][0], extras=False)
    model = MiniDDP(net)
    ws = b.world_size
    mse(model(shard(c["x"][0], rank, ws)), shard(c["y"][0], rank, ws)).backward()
    return {**grads(net), "allreduce_calls": model.allreduce_calls}


def section_training(b: Battery, rank: int, c: dict) -> dict:
    net = Net(c["init"][rank], extras=False)
    model = MiniDDP(net)
    opt = torch.optim.SGD(net.parameters(), lr=c["lr"])
    ws = b.world_size
    for step in range(b.steps):
        mse(model(shard(c["x"][step], rank, ws)), shard(c["y"][step], rank, ws)).backward()
        opt.step()
        opt.zero_grad()
    return params(net)


def section_no_sync(b: Battery, rank: int, c: dict) -> dict:
    net = Net(c["init"][0], extras=False)
    model = MiniDDP(net)
    x, y = shard(c["x"][0], rank, b.world_size), shard(c["y"][0], rank, b.world_size)
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


def section_train_step(b: Battery, rank: int, c: dict) -> dict:
    net = Net(c["init"][rank], extras=False)
    model = MiniDDP(net)
    opt = torch.optim.SGD(net.parameters(), lr=c["lr"], momentum=c["momentum"])
    losses = []
    for step in range(b.steps):
        x, y = shard(c["x"][step], rank, b.world_size), shard(c["y"][step], rank, b.world_size)
        micro = list(zip(x.chunk(b.micro_batches), y.chunk(b.micro_batches)))
        losses.append(float(train_step(model, opt, mse, micro)))
    return {**params(net), "losses": np.array(losses), "allreduce_calls": model.allreduce_calls}


def section_frozen_unused(b: Battery, rank: int, c: dict) -> dict:
    net = Net(c["init"][rank], extras=True)
    model = MiniDDP(net)
    ws = b.world_size
    mse(model(shard(c["x"][0], rank, ws)), shard(c["y"][0], rank, ws)).backward()
    out = {**grads(net), "frozen_grad_is_none": net.frozen.weight.grad is None}
    net.zero_grad()
    opt = torch.optim.SGD(net.parameters(), lr=c["lr"])
    x, y = shard(c["x"][1], rank, ws), shard(c["y"][1], rank, ws)
    train_step(model, opt, mse, list(zip(x.chunk(2), y.chunk(2))))
    return {**out, **params(net), "allreduce_calls": model.allreduce_calls}


def section_sampler(b: Battery, rank: int, c: dict) -> dict:
    ws = b.world_size
    sampler = ShardedSampler(b.sampler_len, ws, rank, shuffle=True, seed=c["sampler_seed"])
    out = {"len": len(sampler)}
    for epoch in range(b.sampler_epochs):
        sampler.set_epoch(epoch)
        gathered = [None] * ws  # every rank's shard of this epoch, gathered on every rank
        dist.all_gather_object(gathered, [int(i) for i in sampler])
        if rank == 0:
            out[f"epoch{epoch}.shards"] = gathered
            out[f"epoch{epoch}.reads_per_index"] = reads_per_index(gathered, b.sampler_len)
    out["again_without_set_epoch"] = [int(i) for i in sampler]
    # the last epoch's shard feeds MiniDDP: every rank ends with the gradient of the mean loss
    # over all ranks' rows (so a sampler test also needs MiniDDP's averaging)
    fc1, fc2 = np.asarray(c["init"][0]["fc1.weight"]), np.asarray(c["init"][0]["fc2.weight"])
    rows = torch.arange(b.sampler_len * fc1.shape[1], dtype=torch.float64)
    x = torch.sin(rows).reshape(b.sampler_len, fc1.shape[1])
    y = torch.cos(torch.arange(b.sampler_len * fc2.shape[0], dtype=torch.float64))
    net = Net(c["init"][0], extras=False)
    model = MiniDDP(net)
    shard_rows = torch.tensor([int(i) for i in sampler])
    mse(model(x[shard_rows]), y.reshape(b.sampler_len, fc2.shape[0])[shard_rows]).backward()
    return {**out, **grads(net)}


SECTIONS: dict[str, Section] = {  # in this order; a hang takes from the deadline they share
    "sampler": section_sampler,
    "broadcast": section_broadcast,
    "average": section_average,
    "training": section_training,
    "no_sync": section_no_sync,
    "frozen_unused": section_frozen_unused,
    "train_step": section_train_step,
}


# ================================================================ Task 6: join_process_group
# A job is started as torchrun numbers it (RANK in the job, LOCAL_RANK on the machine), all on
# loopback, each rank a process of its own (forked on Linux, as the battery's) calling your
# join_process_group with its own environment and writing what happened to a file of its own.
# Every job has a deadline (the ranks' bound plus JOB_MARGIN_S); a rank still running then is
# killed and reported as "no answer". Jobs of one test run at once, each on its own port.
JOB_MARGIN_S = 10  # past a job's bound: the parent stops waiting and kills what is left
BOUND_FACTOR = 3  # SPEC 5.6: every started rank raises within 3x the timeout


def job_environ(rank: int, nodes: int, per_node: int, port: int) -> dict:
    """What torchrun exports to global rank `rank` of a nodes x per_node job (all on loopback)."""
    return {"RANK": str(rank), "WORLD_SIZE": str(nodes * per_node),
            "LOCAL_RANK": str(rank % per_node), "LOCAL_WORLD_SIZE": str(per_node),
            "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}


def free_port() -> int:
    """A loopback port nothing listens on, drawn below the kernel's ephemeral range where it
    can be read (no outgoing connection takes such a port between this check and the job)."""
    low = 32768
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    draw = random.Random(os.getpid() * 1_000_003 + time.monotonic_ns())  # a port, not an input
    for _ in range(200):
        port = draw.randrange(max(1024, low - 16000), low) if low > 2048 else 0
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise OSError("no free loopback port")


def join_worker(environ: dict, timeout_s: float, workdir: str, name: str) -> None:
    """One rank: join_process_group(environ, timeout_s), then (joined) gather every rank's RANK
    over the group it got; its outcome is written as soon as it has one."""
    torch.set_num_threads(1)
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # loopback only, also in a sandbox
    rank = int(environ["RANK"])
    out = {"outcome": None, "group_size": None, "group_rank": None, "gathered": None,
           "env_rank": None, "env_world_size": None, "has_cause": None, "initialized_after": None}
    start = time.monotonic()
    try:
        env = join_process_group(dict(environ), timeout_s)
        out["seconds"] = time.monotonic() - start
        out["outcome"] = "returned"
        out["env_rank"], out["env_world_size"] = int(env.rank), int(env.world_size)
        if dist.is_initialized():
            out["group_size"], out["group_rank"] = dist.get_world_size(), dist.get_rank()
            gathered = [None] * dist.get_world_size()
            dist.all_gather_object(gathered, rank)
            out["gathered"] = gathered
    except Exception as e:  # noqa: BLE001 - the kind is the observation
        out.setdefault("seconds", time.monotonic() - start)
        if out["outcome"] is None:
            out["outcome"] = f"raised {exception_kind(e)}"
            out["has_cause"] = e.__cause__ is not None
            out["initialized_after"] = dist.is_initialized()
        else:  # joined, then the gather failed: the group is not the job's
            out["gathered"] = f"raised {exception_kind(e)}"
        out["message"] = str(e)[:300]
        out["missing"] = getattr(e, "graded_missing", None)  # a name ddp lacks
    path = _result_path(workdir, rank, name)
    with open(path + ".tmp", "wb") as f:
        pickle.dump(out, f)
    os.replace(path + ".tmp", path)
    if dist.is_initialized():  # leave together, as the battery's ranks do
        try:
            dist.barrier()
        except Exception:  # noqa: BLE001 - the result is written; only the exit is left
            pass
        dist.destroy_process_group()


def _forked_join(environ: dict, timeout_s: float, workdir: str, name: str) -> None:
    try:
        join_worker(environ, timeout_s, workdir, name)
    finally:
        os._exit(0)  # never return into the parent's copy of pytest


_JOIN_BOOT = ("import sys, json; sys.path[:0] = json.loads(sys.argv[1]); import common; "
              "common.join_worker(json.loads(sys.argv[2]), float(sys.argv[3]), sys.argv[4], "
              "sys.argv[5])")


def run_jobs(jobs: list[dict]) -> list[dict]:
    """Run every job at once; jobs[i] = {"nodes", "per_node", "missing" (a RANK, or None),
    "timeout_s", "delays" (optional: seconds before each RANK starts)}. Returns, per job,
    {RANK: outcome dict} for every started rank ("no answer" or "died" when it wrote nothing)."""
    results: list[dict] = [{} for _ in jobs]
    with tempfile.TemporaryDirectory(prefix="ddp-join-") as workdir:
        started: list[tuple[int, int, str, object]] = []  # (job, RANK, name, process)
        pending = []  # (start time, job, RANK, environ)
        now = time.monotonic()
        deadline = now
        for j, job in enumerate(jobs):
            port, n = free_port(), job["nodes"] * job["per_node"]
            delays = job.get("delays") or [0.0] * n
            for rank in range(n):
                if rank != job["missing"]:
                    environ = job_environ(rank, job["nodes"], job["per_node"], port)
                    pending.append((now + delays[rank], j, rank, environ))
            deadline = max(deadline, now + max(delays) + BOUND_FACTOR * job["timeout_s"]
                           + JOB_MARGIN_S)
        pending.sort(key=lambda x: x[0])
        try:
            while pending or (time.monotonic() < deadline and any(
                    _alive(p) and not os.path.exists(_result_path(workdir, r, f"job{j}"))
                    for j, r, _, p in started)):
                while pending and pending[0][0] <= time.monotonic():
                    _, j, rank, environ = pending.pop(0)
                    name = f"job{j}"
                    started.append((j, rank, name, _start_join(environ, jobs[j]["timeout_s"],
                                                               workdir, name)))
                time.sleep(0.02)
        finally:
            for *_, p in started:
                _stop(p)
        for j, rank, name, p in started:
            out = _read_result(_result_path(workdir, rank, name))
            results[j][rank] = out if out is not None else {
                "outcome": "died" if _exit_code(p) not in (None, -9) else "no answer"}
    return results


def _start_join(environ: dict, timeout_s: float, workdir: str, name: str):
    """Linux: fork (see Battery._start); elsewhere a fresh interpreter that imports common."""
    if sys.platform == "linux":
        p = mp.get_context("fork").Process(target=_forked_join,
                                           args=(environ, timeout_s, workdir, name), daemon=True)
        p.start()
        return p
    path = json.dumps([p for p in sys.path if p])
    return subprocess.Popen([sys.executable, "-I", "-B", "-c", _JOIN_BOOT, path,
                             json.dumps(environ), repr(float(timeout_s)), workdir, name],
                            stdin=subprocess.DEVNULL)


def record_job(rec, what: str, job: dict, outcomes: dict) -> None:
    """Record what every started rank of `job` did, named `what: rank r ...` (a stub that
    still raises NotImplementedError is reported as such, before anything is recorded)."""
    stubs = sorted(r for r, o in outcomes.items() if o["outcome"] == "raised NotImplementedError")
    if stubs:
        missing = outcomes[stubs[0]].get("missing")
        error = NotImplementedError(outcomes[stubs[0]]["message"] if missing else
                                    f"join_process_group still raises NotImplementedError "
                                    f"(ranks {stubs})")
        error.graded_missing = missing  # a name ddp lacks, as the child's own
        raise error
    n = job["nodes"] * job["per_node"]
    bound = BOUND_FACTOR * job["timeout_s"]
    for rank in range(n):
        if rank == job["missing"]:
            continue
        out = outcomes.get(rank, {"outcome": "no answer"})
        rec.exact(f"{what}: rank {rank} outcome", out["outcome"])
        if job["missing"] is None:
            rec.exact(f"{what}: rank {rank} DistEnv (rank, world_size)",
                      [out.get("env_rank"), out.get("env_world_size")])
            rec.exact(f"{what}: rank {rank} group (rank, size)",
                      [out.get("group_rank"), out.get("group_size")])
            rec.exact(f"{what}: rank {rank} RANKs gathered over the group", out.get("gathered"))
        else:
            rec.exact(f"{what}: rank {rank} group size after returning", out.get("group_size"))
            rec.exact(f"{what}: rank {rank} TimeoutError chains torch's exception",
                      out.get("has_cause"))
            rec.exact(f"{what}: rank {rank} leaves no process group", out.get("initialized_after")
                      is False)
            rec.exact(f"{what}: rank {rank} gave up within {BOUND_FACTOR} x the timeout",
                      out["outcome"] not in ("no answer", "died")
                      and out.get("seconds", bound) < bound)
    messages = [f"rank {r}: {o.get('message', '')}" for r, o in sorted(outcomes.items())
                if o.get("message")]
    if job["missing"] is None and messages:
        raise RuntimeError("; ".join(messages)[:1000])  # the first reason reaches the report
