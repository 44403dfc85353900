"""`check --watch` (autograder/watch.py): a report after the start and after each save, a run
made stale by a save during it never reported, and Ctrl-C leaving nothing running."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from helpers import command_lines

from autograder.watch import watch

ROOT = Path(__file__).resolve().parents[2]


def test_a_save_during_a_run_makes_it_stale():
    """Batch 1 arrives during the first run: that run is not reported; the rerun is, with the
    names saved; batch 2 arrives while idle: one more report; then `saves` ends: 0."""
    runs, reports = [], []

    def run():
        runs.append(len(runs))
        time.sleep(0.4 if len(runs) == 1 else 0.05)
        return len(runs)

    def saves():
        time.sleep(0.1)
        yield ["engine.py"]
        while len(reports) < 1:
            time.sleep(0.01)
        yield ["optim.py", "engine.py"]
        while len(reports) < 2:
            time.sleep(0.01)

    assert watch(run, lambda result, names: reports.append((result, names)), saves()) == 0
    assert reports == [(2, ["engine.py"]), (3, ["engine.py", "optim.py"])]


def test_no_save_reports_once():
    reports = []
    assert watch(lambda: "r", lambda result, names: reports.append((result, names)), []) == 0
    assert reports == [("r", [])]


def _wait_for(path: Path, text: str, timeout: float = 180.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = path.read_text(errors="replace")
        if text in out:
            return out
        time.sleep(0.2)
    raise AssertionError(f"{text!r} not shown within {timeout} s:\n{path.read_text()[-3000:]}")


def test_check_watch_redraws_after_a_save_and_stops_on_ctrl_c(tmp_path):
    impl = tmp_path / "impl"
    shutil.copytree(ROOT / "starter" / "minigrad", impl / "minigrad")
    out = tmp_path / "out.txt"
    with open(out, "w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "autograder", "check", "minigrad",
                                 "--impl", str(impl), "--watch"], cwd=ROOT, stdout=sink,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                # a background job (CI run with `&`, nohup) inherits SIGINT
                                # ignored, and Python then installs no KeyboardInterrupt: a
                                # terminal's Ctrl-C is what is tested
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        _wait_for(out, "minigrad: 0 / ")
        for f in (ROOT / "solutions" / "minigrad").glob("*.py"):
            shutil.copy(f, impl / "minigrad" / f.name)
        shown = _wait_for(out, "minigrad: 70 / 70")
        assert "saved " in shown.split("minigrad: 0 / ")[1]
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=90) == 130
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    time.sleep(0.5)
    left = [pid for pid, argv in command_lines().items() if str(impl).encode() in argv]
    assert left == [], f"processes left behind: {left}"
