"""Where goldens come from: the numeric libraries and kernels a golden generation ran with.

`make goldens` writes `origin()` into every store (store.GoldenStore.origin): the torch and
numpy versions, the CPU capability torch's kernels ran with
(`torch.backends.cpu.get_cpu_capability()`), torch's intra-op thread count, the pinned
`Kernels` of the run's policy, the machine and its CPU. The values are as the children saw
them: a short probe interpreter started with the children's environment (the policy's kernels)
reports them, so a pinned `ATEN_CPU_CAPABILITY` shows. The self-test says which origin the
committed goldens have against this machine's (`describe`); they may differ, since a store
compares within float_policy's allowance on any machine (autograder/grading/float_policy.py).
"""

from __future__ import annotations

import functools
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from ..sandbox import Kernels, scrubbed_env

PROBE = r"""
import json, sys
info = {}
try:
    import numpy
    info["numpy"] = numpy.__version__
except ImportError:
    info["numpy"] = None
try:
    import torch
    info["torch"] = torch.__version__
    info["cpu_capability"] = torch.backends.cpu.get_cpu_capability()
    info["threads"] = torch.get_num_threads()
except ImportError:
    info["torch"] = None
print(json.dumps(info))
"""
PROBE_S = 120.0  # importing torch on a loaded machine


@functools.lru_cache(maxsize=8)
def _probe(kernels: Kernels) -> tuple[tuple[str, object], ...]:
    with tempfile.TemporaryDirectory() as tmp:
        for sub in ("work", "tmp"):
            (Path(tmp) / sub).mkdir()
        try:
            done = subprocess.run([sys.executable, "-I", "-c", PROBE], capture_output=True,
                                  text=True, timeout=PROBE_S, cwd=Path(tmp) / "work",
                                  env=scrubbed_env(Path(tmp), kernels), check=False)
            found = json.loads(done.stdout.strip().splitlines()[-1])
        except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
            found = {}
    return tuple(found.items())


def origin(kernels: Kernels) -> dict:
    """This machine's numeric origin for children with `kernels` (plain JSON data)."""
    found = dict(_probe(kernels))
    return {"torch": found.get("torch"), "numpy": found.get("numpy"),
            "cpu_capability": found.get("cpu_capability"), "threads": found.get("threads"),
            "kernels": kernels.to_json(), "machine": platform.machine(), "cpu": cpu_model()}


def cpu_model() -> str:
    """The CPU's model name (Linux: /proc/cpuinfo), else what platform says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.split(":")[0].strip() in ("model name", "Hardware", "cpu model"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def describe(found: dict) -> str:
    """One line for an origin: 'torch 2.13.0 (AVX512, 1 thread), numpy 2.3.5, x86_64
    (Intel Xeon ...)'; pinned kernels named; 'unknown' for a store written before origins."""
    if not found:
        return "unknown (written before goldens recorded their origin)"
    torch = "no torch" if not found.get("torch") else (
        f"torch {found['torch']} ({found.get('cpu_capability')}, {found.get('threads')} "
        f"thread{'s' if found.get('threads') != 1 else ''})")
    pinned = Kernels.from_json(found.get("kernels")).describe() \
        if found.get("kernels") else Kernels().describe()
    return (f"{torch}, numpy {found.get('numpy')}, {found.get('machine')} "
            f"({found.get('cpu')}); kernels: {pinned}")


COMPARED = ("torch", "numpy", "cpu_capability", "threads", "machine", "cpu", "kernels")


def differences(stored: dict, here: dict) -> list[str]:
    """The fields of origin `stored` (a store's) that differ from `here` (this machine's);
    all of them for a store without an origin."""
    return [k for k in COMPARED if not stored or stored.get(k) != here.get(k)]
