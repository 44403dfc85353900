"""ddp's battery (tests/ddp/common.py, Battery): sections run in turn on world_size processes
while that goes well, and apart (world_size fresh processes each) from the first trouble on.
Whatever a broken rank does in one section (raise, crash, hang), it costs that section only,
and a clean run starts world_size processes, not sections x world_size.

Each scenario runs in a fresh interpreter (the battery forks its ranks; `ddp` and `common` stay
out of this worker's modules) on the reference solution, with shortened deadlines.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCENARIOS = r"""
import json, os, sys, time
sys.path[:0] = [sys.argv[1] + "/solutions", sys.argv[1] + "/tests/ddp", sys.argv[1]]
import runpy
import common
sections = dict(common.SECTIONS)
battery = runpy.run_path(sys.argv[1] + "/tests/ddp/public/test_data_parallel.py",
                         run_name="battery")["BATTERY"]
starts = []
start = common.Battery._start
common.Battery._start = lambda self, *a: starts.append(a) or start(self, *a)


def broken(mode, target, name, section):
    def run(b, rank, c):
        if rank == 1 and name == target:
            if mode == "raise":
                raise ValueError("broken on purpose")
            if mode == "crash":
                os._exit(3)
            if mode == "hang":
                while True:
                    time.sleep(0.05)
        return section(b, rank, c)
    return run


common.warm_up_optimizer()  # as Battery.run does before its workers start (not in each rank)
for mode in sys.argv[3:]:
    for name, section in sections.items():
        common.SECTIONS[name] = broken(mode, sys.argv[2], name, section)
    # a stall ends the in-turn run only where a rank hangs (whose section then waits out the
    # deadline): elsewhere no load can reach either
    common.PG_TIMEOUT_S = 2
    common.SECTION_STALL_S, common.BATTERY_DEADLINE_S = (2, 12) if mode == "hang" else (50, 60)
    starts.clear()
    results = battery._run_workers(battery.cases(seed=5))
    print(json.dumps({"mode": mode, "starts": len(starts), "sections": list(battery.sections),
                      "raised": [{k: v["raised"] for k, v in r.items()} for r in results]}))
"""
TARGET = "no_sync"  # in the middle: sections ran in turn before it, and run after it
MODES = ("none", "raise", "crash", "hang")


@pytest.fixture(scope="module")
def scenarios() -> dict:
    """Each mode's run, in one fresh interpreter (torch imported once)."""
    done = subprocess.run([sys.executable, "-c", SCENARIOS, str(ROOT), TARGET, *MODES],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    runs = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {run["mode"]: run for run in runs}


def test_a_clean_run_starts_one_process_per_rank(scenarios):
    out = scenarios["none"]
    assert out["starts"] == 2  # world_size 2, every section in turn
    assert all(raised is None for rank in out["raised"] for raised in rank.values())


@pytest.mark.parametrize("mode", ["raise", "crash", "hang"])
def test_a_broken_section_costs_only_itself(scenarios, mode):
    out = scenarios[mode]
    assert out["raised"][1][TARGET] == {"raise": "ValueError", "crash": "ChildProcessError",
                                        "hang": "DeadlineExceeded"}[mode]
    assert out["raised"][0][TARGET] is not None  # its peer waited in a collective, in vain
    for rank in out["raised"]:
        assert {k for k, v in rank.items() if v is not None} == {TARGET}, rank
    names = out["sections"]
    apart = len(names) - names.index(TARGET)  # from the broken section on, each apart
    if mode == "hang":  # a loaded machine may stall an earlier section too: more run apart
        assert out["starts"] >= 2 + 2 * apart
    else:
        assert out["starts"] == 2 + 2 * apart
