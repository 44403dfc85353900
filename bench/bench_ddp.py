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


def worker(rank: int, world: int, store_path: str, impl: str, steps: int, results) -> None:
    sys.path.insert(0, impl)
    from ddp import MiniDDP, train_step

    torch.set_num_threads(1)
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    store = dist.FileStore(store_path, world)
    dist.init_process_group("gloo", store=store, rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=120))
    g = torch.Generator().manual_seed(rank)
    x, y = torch.randn(BATCH, WIDTH, generator=g), torch.randn(BATCH, 1, generator=g)
    micro = list(zip(x.chunk(MICRO), y.chunk(MICRO)))

    def loss_fn(out, target):
        return ((out - target) ** 2).mean()

    def timed(step) -> float:
        times = []
        for i in range(steps + 3):
            dist.barrier()
            t = time.perf_counter()
            step()
            if i >= 3:
                times.append(time.perf_counter() - t)
        return statistics.median(times)

    def plain_step(model, opt):
        def step():
            loss_fn(model(x), y).backward()
            opt.step()
            opt.zero_grad()
        return step

    net = mlp()
    mini = MiniDDP(net)
    t_mini = timed(plain_step(mini, torch.optim.SGD(net.parameters(), lr=1e-3)))
    net = mlp()
    ddp = nn.parallel.DistributedDataParallel(net)
    t_ddp = timed(plain_step(ddp, torch.optim.SGD(ddp.parameters(), lr=1e-3)))

    net = mlp()
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", default=str(ROOT / "solutions"))
    parser.add_argument("--world", type=int, default=2)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    impl = str(Path(args.impl).resolve())

    ours, peer = bench_sampler(impl)
    print(f"sampler epoch (1M samples, 8 replicas): ShardedSampler {ours * 1e3:.1f} ms, "
          f"DistributedSampler {peer * 1e3:.1f} ms, ratio {peer / ours:.2f}")

    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    with tempfile.TemporaryDirectory() as tmp:
        procs = [ctx.Process(target=worker, args=(r, args.world, os.path.join(tmp, "store"),
                                                  impl, args.steps, results))
                 for r in range(args.world)]
        for p in procs:
            p.start()
        t_mini, t_ddp, t_accum, t_every, calls_accum, calls_every = results.get(timeout=300)
        for p in procs:
            p.join(timeout=60)
    print(f"step on {args.world} gloo processes ({sum(p.numel() for p in mlp().parameters()):,} "
          f"params, batch {BATCH}/rank): MiniDDP {t_mini * 1e3:.1f} ms, "
          f"DistributedDataParallel {t_ddp * 1e3:.1f} ms, ratio {t_ddp / t_mini:.2f}")
    print(f"accumulation over {MICRO} micro-batches: train_step {t_accum * 1e3:.1f} ms "
          f"({calls_accum:g} all-reduce/step), syncing every micro-batch {t_every * 1e3:.1f} ms "
          f"({calls_every:g} all-reduces/step), ratio {t_every / t_accum:.2f}")


if __name__ == "__main__":
    main()
