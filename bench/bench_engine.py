"""Engine speed, as ratios to a plain pytest run of the same tests, same machine, same run:

- `check` latency per assignment (public tests, reference solution) vs `pytest tests/<a>/public`;
- a full `grade` of every assignment (public + hidden, sandboxed) vs plain pytest of the same
  test folders (one pytest process per assignment, summed), and the difference (grade overhead);
- sandbox overhead: `grade` with the default isolation vs `grade --isolation none`;
- a submission whose package does not import (fusion raising at import in one module): graded
  in one child per visibility, every test failing with the one import error, vs the grade of
  the reference solution.

Our figures (check, grade) are the median of REPEATS wall times (default 5; env BENCH_REPEATS),
the peers' (plain pytest, --isolation none) of PEER_REPEATS (default 3; env BENCH_PEER_REPEATS):
on a loaded 2-core machine this file alone takes 20-40 minutes.

    python bench/bench_engine.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchrows import command_seconds, guarded, print_rows, row  # noqa: E402

from autograder.assignments import discover  # noqa: E402

PY = sys.executable
REPEATS = int(os.environ.get("BENCH_REPEATS", "5"))
PEER_REPEATS = int(os.environ.get("BENCH_PEER_REPEATS", "3"))


def wall(cmd: list[str], repeats: int = REPEATS) -> float:
    """Median wall seconds of `repeats` runs of cmd (from the repository root); raises when the
    command fails."""
    return command_seconds(cmd, ROOT, repeats)


def pytest_cmd(name: str, folders: tuple[str, ...]) -> list[str]:
    return [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider",
            *[f"tests/{name}/{f}" for f in folders], "--impl", "solutions"]


def grade_cmd(out: str, *extra: str) -> list[str]:
    return [PY, "-m", "autograder", "grade", "solutions", "--out", out, *extra]


def check_rows(name: str) -> list[dict]:
    check = wall([PY, "-m", "autograder", "check", name, "--impl", "solutions"])
    plain = wall(pytest_cmd(name, ("public",)), PEER_REPEATS)
    return [row("engine", f"check {name} (public tests, reference solution)", check, "s",
                peer=plain, peer_name="plain pytest of tests/" + name + "/public",
                note=f"median of {REPEATS} (peer {PEER_REPEATS}); lower is better")]


def grade_rows(names: list[str]) -> list[dict]:
    """A full grade (default isolation and --isolation none) and plain pytest of the same tests."""
    with tempfile.TemporaryDirectory() as out:
        grade = wall(grade_cmd(out))
        bare = wall(grade_cmd(out, "--isolation", "none"), PEER_REPEATS)
    plain = sum(wall(pytest_cmd(n, ("public", "hidden")), PEER_REPEATS) for n in names)
    what = f"grade all {len(names)} assignments (public + hidden, reference solution)"
    return [row("engine", what, grade, "s", peer=plain,
                peer_name="plain pytest of the same tests, one run per assignment",
                note=f"median of {REPEATS} (peer {PEER_REPEATS}); lower is better"),
            row("engine", "grade overhead beyond plain pytest (same tests)", grade - plain, "s",
                note="grade minus plain pytest: intake, sandbox, goldens, report"),
            row("engine", "sandbox overhead: grade all, default isolation", grade, "s",
                peer=bare, peer_name="same grade, --isolation none",
                note=f"median of {REPEATS} (peer {PEER_REPEATS}); ratio - 1 is the sandbox's "
                     "share")]


def import_failure_rows(name: str = "fusion") -> list[dict]:
    """`grade` of the reference with a module that raises at import, vs the reference. (A syntax
    error is rejected by intake before any child starts: well under a second.)"""
    import shutil
    with tempfile.TemporaryDirectory() as tmp:
        broken = Path(tmp) / "broken"
        shutil.copytree(ROOT / "solutions" / name, broken / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
        module = sorted(p for p in (broken / name).glob("*.py") if p.name != "__init__.py")[0]
        module.write_text(module.read_text() + "\nraise RuntimeError('import-time crash')\n")
        out = str(Path(tmp) / "out")
        ours = wall([PY, "-m", "autograder", "grade", str(broken), "--assignment", name,
                     "--out", out])
        whole = wall([PY, "-m", "autograder", "grade", str(ROOT / "solutions"), "--assignment",
                      name, "--out", out], PEER_REPEATS)
    return [row("engine", f"grade {name}, package does not import (raises in "
                f"{module.name})", ours, "s", peer=whole,
                peer_name=f"grade of the {name} reference solution",
                note=f"median of {REPEATS} (peer {PEER_REPEATS}); one child per visibility, "
                     "every test failing with the one import error; lower is better")]


def rows() -> list[dict]:
    """check per assignment, a full grade, grade overhead and sandbox overhead."""
    names = [a.name for a in discover()]
    out: list[dict] = []
    for name in names:
        out += guarded("engine", [f"check {name}"], lambda name=name: check_rows(name))
    out += guarded("engine", ["grade fusion, package does not import"], import_failure_rows)
    return out + guarded("engine", ["grade all assignments", "grade overhead",
                                    "sandbox overhead"], lambda: grade_rows(names))


def main() -> None:
    print_rows(rows())


if __name__ == "__main__":
    main()
