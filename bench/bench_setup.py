"""A newcomer's first minutes: `make setup` from a fresh clone (uv vs pip, cold vs warm package
cache), a second `make setup`, the instructor extra on top, and `make demo` after setup.

Each setup figure is one `make setup` in a fresh `git clone` of this repository's HEAD (no
.venv) under temporary cache folders (UV_CACHE_DIR, PIP_CACHE_DIR, and
SETUP_UV_HOME, where .ci/setup.sh keeps uv itself): "cold" starts from empty
caches, "warm" reuses the caches the cold run filled. Cold still has what this machine gives pip
without a download (pip's find-links, e.g. the local CPU torch wheel); everything else comes
from the package index. The pip peer is the same Makefile with SETUP_INSTALLER=pip (pip
--no-compile, same pins). The demo figure is `python -m autograder demo --jobs 4` in this
checkout (what `make demo` runs: DEMO_JOBS=4), beside the same demo graded one example at a
time (--jobs 1, as before).

    python bench/bench_setup.py          # 15-30 minutes on the loaded 2-core machine
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from benchrows import guarded, print_rows, row  # noqa: E402

SETUP_TIMEOUT_S = 1800
DEMO_TIMEOUT_S = 3600


def load() -> str:
    """The 1-minute load average, for the notes."""
    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def timed(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float) -> float:
    """Wall seconds of cmd; raises with the last output line when it fails."""
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, check=False)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {tail[0][:150]}")
    return seconds


def cache_env(installer: str, caches: Path) -> dict[str, str]:
    """This environment with `caches` as uv's and pip's caches and uv's bootstrap folder."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(UV_CACHE_DIR=str(caches / "uv"), PIP_CACHE_DIR=str(caches / "pip"),
               SETUP_UV_HOME=str(caches / "uv-home"), SETUP_INSTALLER=installer)
    return env


def fresh_setup(tmp: Path, label: str, installer: str, caches: Path,
                target: str = "setup") -> tuple[float, Path]:
    """`make setup` (or `target` after it) in a new clone, with `caches` as the package caches;
    (seconds of the last make, the clone)."""
    clone = tmp / label
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    env = cache_env(installer, caches)
    seconds = timed(["make", "setup"], clone, env, SETUP_TIMEOUT_S)
    if target != "setup":
        seconds = timed(["make", target], clone, env, SETUP_TIMEOUT_S)
    return seconds, clone


def setup_rows() -> list[dict]:
    before = load()
    with tempfile.TemporaryDirectory(prefix="bench-setup-") as t:
        tmp = Path(t)
        fig = {}
        for installer in ("uv", "pip"):
            caches = tmp / f"cache-{installer}"
            fig[installer, "cold"], clone = fresh_setup(tmp, f"{installer}-cold", installer, caches)
            shutil.rmtree(clone)
            fig[installer, "warm"], clone = fresh_setup(tmp, f"{installer}-warm", installer, caches)
            if installer == "uv":
                env = cache_env("uv", caches)
                fig["again"] = timed(["make", "setup"], clone, env, 60)
                fig["instructor"] = timed(["make", "setup-instructor"], clone, env, SETUP_TIMEOUT_S)
            shutil.rmtree(clone)
    note = f"lower is better; fresh clone, .[dev]; {before}, then {load()}"
    return [
        row("setup", "make setup, fresh clone, cold cache (local torch wheel still on disk)",
            fig["uv", "cold"], "s", peer=fig["pip", "cold"], peer_name="pip (SETUP_INSTALLER=pip)",
            note=note),
        row("setup", "make setup, fresh clone, warm cache", fig["uv", "warm"], "s",
            peer=fig["pip", "warm"], peer_name="pip (SETUP_INSTALLER=pip)", note=note),
        row("setup", "make setup again (nothing changed)", fig["again"], "s",
            note="the stamp file: make runs nothing"),
        row("setup", "make setup-instructor after setup (instructor extra)",
            fig["instructor"], "s", note="what make test adds; its packages are downloaded "
            "(the cache held .[dev] only)"),
    ]


def demo_rows() -> list[dict]:
    py = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv").exists() else sys.executable
    with tempfile.TemporaryDirectory(prefix="bench-demo-") as t:
        cmd = [py, "-m", "autograder", "demo", "--out"]
        ours = timed([*cmd, f"{t}/j4", "--jobs", "4"], ROOT, dict(os.environ), DEMO_TIMEOUT_S)
        before = load()
        serial = timed([*cmd, f"{t}/j1", "--jobs", "1"], ROOT, dict(os.environ), DEMO_TIMEOUT_S)
    return [row("demo", "make demo after setup: 4 example zips x 8 assignments, --jobs 4", ours,
                "s", peer=serial, peer_name="one example at a time (--jobs 1)",
                note=f"lower is better; {before}")]


def rows() -> list[dict]:
    setup_whats = ["make setup, fresh clone, cold cache (local torch wheel still on disk)",
                   "make setup, fresh clone, warm cache", "make setup again (nothing changed)",
                   "make setup-instructor after setup (instructor extra)"]
    return (guarded("setup", setup_whats, setup_rows)
            + guarded("demo", ["make demo after setup: 4 example zips x 8 assignments, --jobs 4"],
                      demo_rows))


if __name__ == "__main__":
    print_rows(rows())
