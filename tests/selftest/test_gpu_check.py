"""The GPU check (bench/gpu_check.py) in its dry mode on this CPU machine: it cannot rot while
no GPU is lent. Every part that needs CUDA is skipped with the reason, the CPU-side parts ran,
and the JSON and log land in $OUT."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PARTS = {"repro_gpu_tests", "engine_grading", "deterministic_slowdown", "atomic_add_bits",
         "flamingo_cuda_cpu"}


def test_gpu_check_dry_run_reports_every_part(tmp_path):
    env = {**os.environ, "OUT": str(tmp_path / "out")}
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "gpu_check.py"), "--dry"],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["gpu_check.json",
                                                                   "gpu_check.log"]
    report = json.loads((tmp_path / "out" / "gpu_check.json").read_text())
    env_part = report["environment"]
    assert env_part["dry"] is True and env_part["torch"] and "missing_modules" in env_part
    assert set(report["parts"]) == PARTS
    for name, part in report["parts"].items():
        assert part["status"] == "skipped" and part["reason"].startswith("needs CUDA"), name
        assert part["seconds"] >= 0
    slow = report["parts"]["deterministic_slowdown"]
    assert math.isfinite(slow["cpu_loss"]) and slow["cpu_loss"] == slow["cpu_loss_det"]
    bits = report["parts"]["atomic_add_bits"]["cpu"]
    assert {k: v["distinct_default"] for k, v in bits.items()} == {"index_add_": 1, "scatter_add_": 1}
    assert report["parts"]["flamingo_cuda_cpu"]["cpu_shape"] == [2, 12, 61]
    log = (tmp_path / "out" / "gpu_check.log").read_text()
    assert all(f"{p}: skipped" in log for p in PARTS)


def test_a_broken_part_fails_the_check_and_names_itself(tmp_path):
    """A part that raises is reported failed with its reason (the others still run), exit 1:
    here the fusion part, pointed at a solutions folder that does not exist."""
    script = tmp_path / "broken.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'bench')!r})\n"
        "import gpu_check\n"
        "def broken(dry):\n    raise ImportError('no fusion here')\n"
        "gpu_check.PARTS['flamingo_cuda_cpu'] = broken\n"
        "sys.exit(gpu_check.main(['--dry', '--only', 'flamingo_cuda_cpu', 'atomic_add_bits',"
        " '--out', sys.argv[1]]))\n")
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads((tmp_path / "out" / "gpu_check.json").read_text())
    assert report["parts"]["flamingo_cuda_cpu"]["status"] == "failed"
    assert "ImportError: no fusion here" in report["parts"]["flamingo_cuda_cpu"]["reason"]
    assert report["parts"]["atomic_add_bits"]["status"] == "skipped"


def test_carried_wheels_are_unpacked_onto_the_path(tmp_path, monkeypatch):
    """What the GPU machine lacks comes as wheels in .gpu-wheels/: unpacked (no pip, no
    network) into a folder first on sys.path and on the children's PYTHONPATH."""
    import importlib
    import zipfile

    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    gpu_check = importlib.import_module("gpu_check")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    with zipfile.ZipFile(wheels / "carried_probe-1.0-py3-none-any.whl", "w") as zf:
        zf.writestr("carried_probe.py", "VALUE = 42\n")
    monkeypatch.setattr(gpu_check, "WHEELS", wheels)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setenv("PYTHONPATH", "")
    logged = []
    target = gpu_check.install_wheels(logged.append)
    assert importlib.import_module("carried_probe").VALUE == 42
    assert os.environ["PYTHONPATH"] == target and "carried_probe-1.0" in logged[0]
    monkeypatch.setattr(gpu_check, "WHEELS", tmp_path / "none")
    assert gpu_check.install_wheels(logged.append) is None
    monkeypatch.delitem(sys.modules, "carried_probe")
