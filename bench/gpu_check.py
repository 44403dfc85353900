"""The GPU check: what the course claims happens on a GPU, measured in one run (`make gpu-check`).

    python3 bench/gpu_check.py            # on the GPU machine, with its own python3 and torch
    python3 bench/gpu_check.py --dry      # anywhere: every part that needs CUDA is skipped,
                                          # with the reason; the CPU-side parts still run

It writes gpu_check.json and gpu_check.log to $OUT (default ./out/gpu-check). Parts, each
{"status": "ok" | "failed" | "skipped", "reason", "seconds", figures...}:

  environment       python, torch, CUDA, the device, and which course packages are missing
                    (installed from .gpu-wheels/, made by `make gpu-wheels`, when present)
  repro_gpu_tests   pytest tests/repro/gpu on the reference solution
  engine_grading    the engine grades examples/complete.zip and classic-bugs.zip for repro and
                    fusion with CUDA visible, in the course's sandbox as the machine allows
                    (its isolation report is in the part's `isolation`)
  deterministic_slowdown  one embedding + conv1d + matmul training step, default against
                    repro.deterministic_mode(): warm-up, then the median of CUDA-event timings
  atomic_add_bits   a contended index_add_ and scatter_add_: distinct bit patterns over RUNS
                    runs, by default and in deterministic mode
  flamingo_cuda_cpu fusion's FlamingoStyleLM (gates opened) on CUDA against the CPU result

It needs no network and only the working tree (plus .gpu-wheels/ where that machine lacks
hypothesis or pytest-timeout); the pytest part has a 240 s limit, and the whole is expected to
take 3-5 minutes on one H200 (unmeasured: no GPU has run it yet). Exit status: 0 unless a part
failed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WHEELS = ROOT / ".gpu-wheels"
# Imported by the engine or the graded tests of repro and fusion, beyond the GPU machine's
# preinstalled python3/torch/numpy/scipy/pytest/pytest-xdist/transformers/rich.
COURSE_MODULES = ("numpy", "scipy", "torch", "pytest", "rich", "transformers", "hypothesis",
                  "pytest_timeout", "jsonschema")
RUNS = 20
STEP_WARMUP, STEP_TIMED = 10, 50


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def part_environment(dry: bool) -> dict:
    import torch

    missing = [m for m in COURSE_MODULES if importlib.util.find_spec(m) is None]
    out = {"status": "ok", "python": platform.python_version(), "torch": torch.__version__,
           "cuda": torch.version.cuda, "cuda_available": torch.cuda.is_available(),
           "dry": dry, "missing_modules": missing,
           "wheels_carried": sorted(p.name for p in WHEELS.glob("*.whl"))}
    if torch.cuda.is_available():
        out["device"] = torch.cuda.get_device_name(0)
        out["cudnn"] = torch.backends.cudnn.version()
    return out


def install_wheels(log: Callable[[str], None]) -> str | None:
    """Unpack .gpu-wheels/*.whl (a wheel is a zip of its import tree: no pip, no network) into
    a temporary folder put first on sys.path and PYTHONPATH; returns the folder, or None when
    there are no wheels."""
    wheels = sorted(WHEELS.glob("*.whl"))
    if not wheels:
        return None
    target = tempfile.mkdtemp(prefix="gpu-check-site-")
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(target)
    log(f"unpacked {len(wheels)} wheels into {target}: {', '.join(w.name for w in wheels)}")
    sys.path.insert(0, target)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [target, os.environ.get("PYTHONPATH")]))
    return target


def part_repro_gpu_tests(dry: bool) -> dict:
    if dry:
        return {"status": "skipped", "reason": "needs CUDA: every test in tests/repro/gpu "
                                                "skips without it (make test runs them so)"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:randomly", "tests/repro/gpu"], cwd=ROOT, capture_output=True,
                          text=True, timeout=240)
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    return {"status": "ok" if done.returncode == 0 else "failed", "summary": last,
            "output_tail": done.stdout[-3000:] + done.stderr[-1000:]}


def part_engine_grading(dry: bool) -> dict:
    if dry:
        return {"status": "skipped", "reason": "needs CUDA: on CPU the course's self-tests grade "
                                                "these examples already"}
    sys.path.insert(0, str(ROOT))
    from autograder.grading import pipeline
    from autograder.grading.job import GradeJob
    from autograder.sandbox import SandboxPolicy, capabilities, report_lines

    policy = SandboxPolicy.create("auto")
    scores = {}
    for example in ("complete", "classic-bugs"):
        for assignment in ("repro", "fusion"):
            started = time.monotonic()
            results = pipeline.grade(GradeJob(ROOT / "examples" / f"{example}.zip", ROOT,
                                              "grade", (assignment,), policy=policy))
            scores[f"{example}/{assignment}"] = {
                "score": results.score, "max_score": results.max_score,
                "seconds": round(time.monotonic() - started, 1),
                "problems": results.messages[:5]}
    complete = [v for k, v in scores.items() if k.startswith("complete/")]
    bugs = [v for k, v in scores.items() if k.startswith("classic-bugs/")]
    ok = all(v["score"] == v["max_score"] > 0 for v in complete) and \
        all(v["score"] < v["max_score"] for v in bugs)
    return {"status": "ok" if ok else "failed", "scores": scores,
            "isolation": report_lines(policy, capabilities(policy)) or ["complete"],
            "cuda_devices_in_child": "see isolation: a sandbox layer that hides /dev/nvidia* "
                                     "makes the child run on CPU"}


def training_step(device: str, vocab: int = 4096, dim: int = 256, batch: int = 32,
                  length: int = 128):
    """A small embedding + conv1d + matmul model, its optimizer and one step (a closure)."""
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(vocab, dim), transpose(),
                                torch.nn.Conv1d(dim, dim, 5, padding=2), transpose(),
                                torch.nn.Linear(dim, vocab)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    ids = torch.randint(0, vocab, (batch, length), device=device)

    def step() -> float:
        opt.zero_grad()
        logits = model(ids)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, vocab), ids.reshape(-1))
        loss.backward()
        opt.step()
        return float(loss.detach())
    return step


def transpose():
    """A module that swaps (B, T, C) and (B, C, T) (nn.Sequential needs modules)."""
    import torch

    class Transpose(torch.nn.Module):
        def forward(self, x):
            return x.transpose(1, 2)
    return Transpose()


def _median_ms(step: Callable[[], float]) -> float:
    import torch

    for _ in range(STEP_WARMUP):
        step()
    times = []
    for _ in range(STEP_TIMED):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def _repro():
    sys.path.insert(0, str(ROOT / "solutions"))
    import repro

    return repro


def part_deterministic_slowdown(dry: bool) -> dict:
    repro = _repro()
    if dry:
        small = {"vocab": 256, "dim": 32, "batch": 4, "length": 16}  # the code path, not a figure
        loss = training_step("cpu", **small)()
        with repro.deterministic_mode():
            loss_det = training_step("cpu", **small)()
        return {"status": "skipped", "reason": "needs CUDA: the slowdown is a GPU figure (CUDA "
                "events); the step ran once on CPU", "cpu_loss": loss, "cpu_loss_det": loss_det}
    default = _median_ms(training_step("cuda"))
    with repro.deterministic_mode():
        det = _median_ms(training_step("cuda"))
    return {"status": "ok", "default_ms": round(default, 4), "deterministic_ms": round(det, 4),
            "ratio": round(det / default, 3), "warmup": STEP_WARMUP, "timed": STEP_TIMED,
            "statistic": "median of CUDA-event timings"}


def _digest(t) -> str:
    return hashlib.sha256(t.detach().cpu().contiguous().numpy().tobytes()).hexdigest()[:16]


def contended(device: str, kind: str):
    """2**20 float32 values summed into 16 slots: heavy atomicAdd contention on CUDA."""
    import torch

    g = torch.Generator(device=device).manual_seed(0)
    src = torch.randn(2**20, device=device, generator=g) * 1e3
    index = torch.randint(0, 16, (2**20,), device=device, generator=g)
    out = torch.zeros(16, device=device)
    return out.index_add_(0, index, src) if kind == "index_add_" else out.scatter_add_(0, index, src)


def part_atomic_add_bits(dry: bool) -> dict:
    repro = _repro()
    device = "cpu" if dry else "cuda"
    runs = 3 if dry else RUNS
    found = {}
    for kind in ("index_add_", "scatter_add_"):
        with repro.deterministic_mode(False):
            default = len({_digest(contended(device, kind)) for _ in range(runs)})
        with repro.deterministic_mode():
            det = len({_digest(contended(device, kind)) for _ in range(runs)})
        found[kind] = {"distinct_default": default, "distinct_deterministic": det, "runs": runs}
    if dry:
        return {"status": "skipped", "reason": "needs CUDA: atomicAdd exists only on the GPU "
                "(ran on CPU, where every run is identical)", "cpu": found}
    ok = all(v["distinct_default"] > 1 and v["distinct_deterministic"] == 1 for v in found.values())
    return {"status": "ok" if ok else "failed", **found}


def part_flamingo_cuda_cpu(dry: bool) -> dict:
    import torch

    sys.path.insert(0, str(ROOT / "tests" / "fusion"))
    sys.path.insert(0, str(ROOT / "solutions"))
    from common import build_lm

    from fusion import FlamingoStyleLM  # noqa: I001 (solutions/ and tests/fusion on sys.path)

    def logits(device: str):
        model = FlamingoStyleLM(build_lm("llama", 0), every=1)
        with torch.no_grad():
            for name, p in model.named_parameters():
                if name.endswith(("attn_gate", "ff_gate")):
                    p.fill_(0.5)  # open the gates: the cross-attention counts
        model = model.to(device).eval()
        g = torch.Generator().manual_seed(0)
        ids = torch.randint(0, 61, (2, 12), generator=g)
        media = torch.randn(2, 4, 32, generator=g)
        with torch.no_grad():
            out = model(ids.to(device), media.to(device))
        return getattr(out, "logits", out).float().cpu()

    cpu = logits("cpu")
    if dry:
        return {"status": "skipped", "reason": "needs CUDA: the CPU forward ran",
                "cpu_shape": list(cpu.shape)}
    cuda = logits("cuda")
    diff = float((cuda - cpu).abs().max())
    ok = torch.allclose(cuda, cpu, atol=1e-4, rtol=1e-4)
    return {"status": "ok" if ok else "failed", "max_abs_diff": diff, "atol": 1e-4, "rtol": 1e-4,
            "shape": list(cpu.shape)}


PARTS = {"repro_gpu_tests": part_repro_gpu_tests, "engine_grading": part_engine_grading,
         "deterministic_slowdown": part_deterministic_slowdown,
         "atomic_add_bits": part_atomic_add_bits, "flamingo_cuda_cpu": part_flamingo_cuda_cpu}


def run(out: Path, dry: bool | None, only: list[str] | None = None) -> dict:
    """Run the parts (all, or `only`), write out/gpu_check.{json,log}, return the report."""
    out.mkdir(parents=True, exist_ok=True)
    lines = []

    def log(text: str) -> None:
        lines.append(text)
        print(text, flush=True)

    started = time.monotonic()
    if importlib.util.find_spec("hypothesis") is None or importlib.util.find_spec("pytest_timeout") is None:
        install_wheels(log)
    dry = (not _cuda()) if dry is None else dry
    report = {"environment": part_environment(dry), "parts": {}}
    log(f"environment: {json.dumps(report['environment'])}")
    for name, part in PARTS.items():
        if only and name not in only:
            continue
        t0 = time.monotonic()
        try:
            result = part(dry)
        except Exception as e:  # one broken part must not hide the others
            result = {"status": "failed", "reason": f"{type(e).__name__}: {e}",
                      "traceback": traceback.format_exc()[-3000:]}
        result["seconds"] = round(time.monotonic() - t0, 2)
        report["parts"][name] = result
        log(f"{name}: {result['status']} ({result['seconds']} s) "
            f"{result.get('reason', '')}".rstrip())
    report["seconds"] = round(time.monotonic() - started, 1)
    log(f"total {report['seconds']} s")
    (out / "gpu_check.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (out / "gpu_check.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dry", action="store_true", help="skip every part that needs CUDA "
                        "(the default when none is available)")
    parser.add_argument("--out", help="output folder (default: $OUT, else out/gpu-check)")
    parser.add_argument("--only", nargs="*", choices=sorted(PARTS), help="only these parts")
    args = parser.parse_args(argv)
    out = Path(args.out or os.environ.get("OUT") or ROOT / "out" / "gpu-check")
    with contextlib.chdir(ROOT):
        report = run(out, True if args.dry else None, args.only)
    return 1 if any(p["status"] == "failed" for p in report["parts"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
