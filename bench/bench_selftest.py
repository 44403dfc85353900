"""The course self-test's mutants: seconds per mutant graded (`course_selftest.mutant_problems`,
probe tests only) on the warm path (zygote forks entering the sandbox: backends/warmbox.py)
vs the cold chain (TRAINING_SYSTEMS_WARM=0: a fresh sandboxed interpreter each), same
mutants, same run, after one warm-up grading on each (the zygote's start is paid there).

    python bench/bench_selftest.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from benchrows import guarded, print_rows, row  # noqa: E402

ASSIGNMENTS = ("minigrad", "ad_modes", "ddp", "fusion")
MUTANTS = 4  # per assignment


def per_mutant(assignment, mutants, warm: bool) -> float:
    import os

    from autograder import settings
    from autograder.authoring import course_selftest

    os.environ[settings.WARM.name] = "1" if warm else "0"
    course_selftest.mutant_problems(assignment, mutants[0])  # warm-up
    times = []
    for mutant in mutants:
        started = time.monotonic()
        problems = course_selftest.mutant_problems(assignment, mutant)
        times.append(time.monotonic() - started)
        if problems:
            raise RuntimeError(f"{mutant.name}: {problems}")
    return statistics.median(times)


def selftest_rows(name: str) -> list[dict]:
    from autograder.assignments import load
    from autograder.authoring.mutants import load_mutants

    assignment = load(name)
    mutants = load_mutants(assignment)[:MUTANTS]
    warm = per_mutant(assignment, mutants, True)
    cold = per_mutant(assignment, mutants, False)
    return [row("engine", f"self-test: one {name} mutant graded (probe tests)", warm, "s",
                peer=cold, peer_name="cold chain (TRAINING_SYSTEMS_WARM=0)",
                note=f"median of {len(mutants)}; lower is better")]


def rows() -> list[dict]:
    out: list[dict] = []
    for name in ASSIGNMENTS:
        out += guarded("engine", [f"self-test: one {name} mutant graded (probe tests)"],
                       lambda name=name: selftest_rows(name))
    return out


if __name__ == "__main__":
    print_rows(rows())
