"""ddp speed as ratios to PyTorch's own classes, measured in the same run on the same data.

    python bench/bench_ddp.py [--impl DIR] [--world 2] [--steps 20]   # DIR holds a ddp/ package

1. Sampler: one epoch of indices (1,000,000 samples, 8 replicas, shuffle) from ShardedSampler
   vs torch.utils.data.DistributedSampler (both draw the same torch.randperm).
2. Data-parallel step: forward + backward + SGD step of a 4-layer MLP (about 1.6M parameters)
   on `--world` gloo CPU processes, MiniDDP vs torch.nn.parallel.DistributedDataParallel
   (bucketed all-reduce overlapped with backward; MiniDDP does one flat all-reduce at the end).
3. Accumulation over 8 micro-batches: train_step (one all-reduce per step, under no_sync) vs the
   same loop synchronizing after every micro-batch, both with MiniDDP: what no_sync saves.
A ratio > 1 means the first is faster. Median of the timed steps after 3 warm-up steps.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from benchrows import guarded, not_measured, print_rows, row  # noqa: E402

WIDTH, DEPTH, BATCH, MICRO = 640, 4, 64, 8


def mlp() -> nn.Module:
    torch.manual_seed(0)
    layers: list[nn.Module] = []
    for _ in range(DEPTH):
        layers += [nn.Linear(WIDTH, WIDTH), nn.GELU()]
    return nn.Sequential(*layers, nn.Linear(WIDTH, 1))


def bench_sampler(impl: str) -> tuple[float, float]:
    sys.path.insert(0, impl)
    from torch.utils.data import DistributedSampler

    from ddp import ShardedSampler

    def epoch(sampler) -> float:
        sampler.set_epoch(1)
        t = time.perf_counter()
        list(sampler)
        return time.perf_counter() - t

    ours = min(epoch(ShardedSampler(1_000_000, 8, 3)) for _ in range(3))
    peer = min(epoch(DistributedSampler(range(1_000_000), 8, 3)) for _ in range(3))
    return ours, peer


def worker(rank: int, world: int, store_path: str, impl: str, steps: int, results,
           backend: str = "gloo") -> None:
    """One rank: times the three loops; rank 0 puts the medians on `results`. With
    backend="nccl" the model and data live on cuda:rank."""
    sys.path.insert(0, impl)
    from ddp import MiniDDP, train_step

    torch.set_num_threads(1)
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    device = torch.device(f"cuda:{rank}") if backend == "nccl" else torch.device("cpu")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    store = dist.FileStore(store_path, world)
    dist.init_process_group(backend, store=store, rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=120))
    g = torch.Generator().manual_seed(rank)
    x, y = torch.randn(BATCH, WIDTH, generator=g), torch.randn(BATCH, 1, generator=g)
    x, y = x.to(device), y.to(device)
    micro = list(zip(x.chunk(MICRO), y.chunk(MICRO)))

    def loss_fn(out, target):
        return ((out - target) ** 2).mean()

    def timed(step) -> float:
        times = []
        for i in range(steps + 3):
            dist.barrier()
            t = time.perf_counter()
            step()
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            if i >= 3:
                times.append(time.perf_counter() - t)
        return statistics.median(times)

    def plain_step(model, opt):
        def step():
            loss_fn(model(x), y).backward()
            opt.step()
            opt.zero_grad()
        return step

    net = mlp().to(device)
    mini = MiniDDP(net)
    t_mini = timed(plain_step(mini, torch.optim.SGD(net.parameters(), lr=1e-3)))
    net = mlp().to(device)
    ddp = nn.parallel.DistributedDataParallel(net, device_ids=[rank] if device.type == "cuda"
                                              else None)
    t_ddp = timed(plain_step(ddp, torch.optim.SGD(ddp.parameters(), lr=1e-3)))

    net = mlp().to(device)
    mini = MiniDDP(net)
    opt = torch.optim.SGD(net.parameters(), lr=1e-3)
    calls = mini.allreduce_calls
    t_accum = timed(lambda: train_step(mini, opt, loss_fn, micro))
    calls_accum = (mini.allreduce_calls - calls) / (steps + 3)

    def sync_every():
        for xb, yb in micro:  # no no_sync(): every backward all-reduces
            (loss_fn(mini(xb), yb) / MICRO).backward()
        opt.step()
        opt.zero_grad()

    calls = mini.allreduce_calls
    t_every = timed(sync_every)
    calls_every = (mini.allreduce_calls - calls) / (steps + 3)
    dist.destroy_process_group()
    if rank == 0:
        results.put((t_mini, t_ddp, t_accum, t_every, calls_accum, calls_every))


def measure_steps(impl: str, world: int, steps: int, backend: str = "gloo") -> tuple:
    """(MiniDDP step, DDP step, train_step, sync-every step) medians in seconds, and the
    all-reduces per step of the last two, from `world` spawned ranks."""
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    with tempfile.TemporaryDirectory() as tmp:
        procs = [ctx.Process(target=worker, args=(r, world, os.path.join(tmp, "store"),
                                                  impl, steps, results, backend))
                 for r in range(world)]
        for p in procs:
            p.start()
        try:
            return results.get(timeout=300)
        finally:
            for p in procs:
                p.join(timeout=60)
                if p.is_alive():
                    p.kill()


def report(world: int, sampler: tuple, step: tuple) -> None:
    """The human-readable lines of a run alone."""
    ours, peer = sampler
    t_mini, t_ddp, t_accum, t_every, calls_accum, calls_every = step
    print(f"sampler epoch (1M samples, 8 replicas): ShardedSampler {ours * 1e3:.1f} ms, "
          f"DistributedSampler {peer * 1e3:.1f} ms, ratio {peer / ours:.2f}")
    print(f"step on {world} gloo processes ({n_params():,} "
          f"params, batch {BATCH}/rank): MiniDDP {t_mini * 1e3:.1f} ms, "
          f"DistributedDataParallel {t_ddp * 1e3:.1f} ms, ratio {t_ddp / t_mini:.2f}")
    print(f"accumulation over {MICRO} micro-batches: train_step {t_accum * 1e3:.1f} ms "
          f"({calls_accum:g} all-reduce/step), syncing every micro-batch {t_every * 1e3:.1f} ms "
          f"({calls_every:g} all-reduces/step), ratio {t_every / t_accum:.2f}")


def n_params() -> int:
    return sum(p.numel() for p in mlp().parameters())


def sampler_rows(sampler: tuple) -> list[dict]:
    ours, peer = sampler
    return [row("ddp", "ShardedSampler epoch: 1,000,000 samples, 8 replicas, shuffle",
                ours * 1e3, "ms", peer=peer * 1e3,
                peer_name="torch DistributedSampler", note="best of 3; lower is better")]


def step_rows(world: int, step: tuple, backend: str = "gloo") -> list[dict]:
    t_mini, t_ddp, t_accum, t_every, calls_accum, calls_every = step
    where = f"{world} gloo CPU processes" if backend == "gloo" else f"{world} GPUs, nccl"
    size = f"MLP {n_params() / 1e6:.1f}M params, batch {BATCH}/rank"
    return [
        row("ddp", f"MiniDDP step on {where}: {size}", t_mini * 1e3, "ms", peer=t_ddp * 1e3,
            peer_name="torch DistributedDataParallel", note="median; lower is better"),
        row("ddp", f"train_step, {MICRO} micro-batches under no_sync on {where}", t_accum * 1e3,
            "ms", peer=t_every * 1e3, peer_name="MiniDDP syncing every micro-batch",
            note=f"{calls_accum:g} vs {calls_every:g} all-reduces/step; lower is better"),
    ]


def gpu_rows(impl: str, world: int, steps: int) -> list[dict]:
    """The nccl rows when this machine has `world` GPUs, else rows saying they were not measured."""
    whats = [f"MiniDDP step on {world} GPUs, nccl", f"train_step under no_sync on {world} GPUs"]
    if not torch.cuda.is_available():
        return [not_measured("ddp", w, "no CUDA") for w in whats]
    if torch.cuda.device_count() < world:
        return [not_measured("ddp", w, f"{torch.cuda.device_count()} GPU(s) < {world}")
                for w in whats]
    return guarded("ddp", whats,
                   lambda: step_rows(world, measure_steps(impl, world, steps, "nccl"), "nccl"))


def rows(impl: str = str(ROOT / "solutions"), world: int = 2, steps: int = 20) -> list[dict]:
    """Sampler, data-parallel step and accumulation, reference solution vs PyTorch's classes."""
    impl = str(Path(impl).resolve())
    out = guarded("ddp", ["ShardedSampler epoch"], lambda: sampler_rows(bench_sampler(impl)))
    out += guarded("ddp", [f"MiniDDP step on {world} gloo CPU processes",
                           f"train_step under no_sync on {world} gloo CPU processes"],
                   lambda: step_rows(world, measure_steps(impl, world, steps)))
    return out + gpu_rows(impl, world, steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", default=str(ROOT / "solutions"))
    parser.add_argument("--world", type=int, default=2)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    impl = str(Path(args.impl).resolve())
    sampler = bench_sampler(impl)
    step = measure_steps(impl, args.world, args.steps)
    report(args.world, sampler, step)
    print_rows(sampler_rows(sampler) + step_rows(args.world, step)
               + gpu_rows(impl, args.world, args.steps))


if __name__ == "__main__":
    main()
