"""What a hang costs: `check minigrad` on the reference with an endless loop at the top of
`exp()` (four public tests reach it), with the per-test limits the goldens give
(autograder/backends/timeouts.py) vs the fixed 10 s default (the same course with
`measured_timeouts = false`), same machine, same run.

Each figure is the median of REPEATS wall times (default 1; env BENCH_HANG_REPEATS): the
fixed-limit run alone takes about 50 s.

    python bench/bench_timeouts.py
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from benchrows import command_seconds, guarded, print_rows, row  # noqa: E402

PY = sys.executable
REPEATS = int(os.environ.get("BENCH_HANG_REPEATS", "1"))
EXP_BODY = "        out = Tensor(np.exp(self.data), _parents=(self,))\n"
WHAT = "hang in exp: check minigrad wall time, per-test timeouts vs fixed 10 s"


def hanging_submission(folder: Path) -> Path:
    """The reference minigrad with `while True: pass` at the top of exp()."""
    pkg = folder / "sub" / "minigrad"
    shutil.copytree(ROOT / "solutions" / "minigrad", pkg)
    engine = pkg / "engine.py"
    source = engine.read_text()
    if source.count(EXP_BODY) != 1:
        raise RuntimeError("exp()'s body in solutions/minigrad/engine.py changed")
    engine.write_text(source.replace(EXP_BODY, "        while True: pass\n" + EXP_BODY))
    return folder / "sub"


def fixed_limit_course(folder: Path) -> Path:
    """A course root whose minigrad ignores the goldens' timings (every test: 10 s)."""
    root = folder / "course"
    shutil.copytree(ROOT / "tests" / "minigrad", root / "tests" / "minigrad",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for kind in ("solutions", "starter"):
        (root / kind).symlink_to(ROOT / kind)
    toml = root / "tests" / "minigrad" / "assignment.toml"
    # a top-level key: before the file's first table ([returns]), where a key appended at the
    # end would land
    text = toml.read_text()
    first_table = re.search(r"^\[", text, re.MULTILINE)
    at = first_table.start() if first_table else len(text)
    toml.write_text(text[:at] + "measured_timeouts = false\n" + text[at:])
    return root


def wall(sub: Path, course: Path | None) -> float:
    """Median wall seconds of `check minigrad --impl sub` (exit 1: some test failed, as it
    must, at exp()); raises on any other run, so a broken run never passes for a fast one."""
    env = dict(os.environ)
    if course is not None:
        env["TRAINING_SYSTEMS_ROOT"] = str(course)
    return command_seconds([PY, "-m", "autograder", "check", "minigrad", "--impl", str(sub)],
                           ROOT, REPEATS, env,
                           lambda proc: proc.returncode == 1 and "in exp()" in proc.stdout)


def hang_rows() -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        sub = hanging_submission(Path(tmp))
        ours = wall(sub, None)
        fixed = wall(sub, fixed_limit_course(Path(tmp)))
    return [row("engine", WHAT, ours, "s", peer=fixed,
                peer_name="fixed 10 s per test (measured_timeouts = false)",
                note=f"median of {REPEATS}; lower is better; limits from the goldens' timings "
                     "(max(2 s, 10 x the reference's slowest run))")]


def rows() -> list[dict]:
    return guarded("engine", [WHAT], hang_rows)


def main() -> None:
    print_rows(rows())


if __name__ == "__main__":
    main()
