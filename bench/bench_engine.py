"""Engine speed: `check` wall time per assignment, and `grade` overhead beyond the tests
themselves (grade wall time minus a plain local pytest run of the same tests, same machine,
same run). Usage: python bench/bench_engine.py [assignment ...]"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.assignments import discover  # noqa: E402

PY = sys.executable
REPEATS = 3


def wall(cmd: list[str]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        t = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, capture_output=True, check=False)
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    names = sys.argv[1:] or [a.name for a in discover()]
    print(f"{'assignment':<10} {'check s':>8} {'grade s':>8} {'pytest s':>9} {'overhead s':>11}")
    for name in names:
        check = wall([PY, "-m", "autograder", "check", name, "--impl", "solutions"])
        with tempfile.TemporaryDirectory() as out:
            grade = wall([PY, "-m", "autograder", "grade", "solutions", "--assignment", name,
                          "--out", out])
        plain = wall([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"tests/{name}/public",
                      f"tests/{name}/hidden", "--impl", "solutions"])
        print(f"{name:<10} {check:8.2f} {grade:8.2f} {plain:9.2f} {grade - plain:11.2f}")


if __name__ == "__main__":
    main()
