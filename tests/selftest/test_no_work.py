"""A point is earned only by doing the work.

Each tests/selftest/no_work/<assignment>/<case>.toml is the reference solution with ONE handout
task replaced by a shape-correct implementation that does no work (a constant, input-blind
output, a filter that stores nothing, a study that never calls its callback, an entry point
that raises everywhere, or a cheat that reads the test's frames or rebinds what the test draws
through), written as edits of solutions/<package>/ the way mutants are
(autograder/authoring/mutants.py):

    task = 5                      # the handout task the case replaces
    exceptions = ["test_id"]      # tests of that task allowed to still pass (optional)
    [[edits]]                     # applied in order; `old` must occur exactly once
    file = "optim.py"             # relative to the solution package
    old = "..."
    new = "..."

The case is graded with only that task's tests (public and hidden): every test outside
`exceptions` must fail, and each exception is worth at most one point and says why in its
docstring. New assignments add case files; nothing is registered.
"""

from __future__ import annotations

import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import grade_root

from autograder.assignments import discover
from autograder.authoring.mutants import Mutant, materialize
from autograder.grading.judge import task_numbers

NO_WORK_DIR = Path(__file__).resolve().parent / "no_work"
ASSIGNMENTS = {a.name: a for a in discover()}
COVERED = ("minigrad", "bpe", "dedup", "scaling", "ddp", "repro")  # every task has a case


@dataclass(frozen=True)
class Case:
    """One no-work case: its task, the tests allowed to pass, and its edits (file, old, new)."""

    name: str
    task: int
    exceptions: tuple[str, ...]
    edits: tuple[tuple[str, str, str], ...]


def no_work_cases() -> list[tuple[str, Path]]:
    """(assignment name, case file) for every case file present."""
    if not NO_WORK_DIR.is_dir():
        return []
    return [(a.name, c) for a in sorted(NO_WORK_DIR.iterdir()) if a.is_dir()
            for c in sorted(a.glob("*.toml"))]


def read_case(path: Path) -> Case:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    edits = tuple((str(e["file"]), str(e["old"]), str(e["new"])) for e in data.get("edits", []))
    return Case(path.stem, int(data["task"]), tuple(str(x) for x in data.get("exceptions", [])),
                edits)


def assemble(assignment, case: Case, dest: Path) -> Path:
    """A submission folder: solutions/<package>/ with the case's edits applied
    (mutants.MutantError when an edit no longer applies to the current solution)."""
    return materialize(assignment, Mutant(f"no_work/{case.name}", "", case.edits), dest)


CASES = no_work_cases()


def test_case_files_are_well_formed(tmp_path):
    """Every case names an assignment that exists and a task it has, and its edits apply to
    the current solution."""
    assert CASES, "no case under tests/selftest/no_work/"
    for name, path in CASES:
        assert name in ASSIGNMENTS, f"{path}: no assignment {name!r}"
        assignment, case = ASSIGNMENTS[name], read_case(path)
        assert case.task in task_numbers(assignment), f"{path}: {name} has no task {case.task}"
        assert case.edits, f"{path}: no edits of the reference"
        assemble(assignment, case, tmp_path / name / case.name)


@pytest.mark.parametrize("name", COVERED)
def test_every_task_has_a_no_work_case(name):
    """Each task of these assignments is tried by at least one implementation doing no work."""
    tried = {read_case(path).task for n, path in CASES if n == name}
    missing = sorted(set(task_numbers(ASSIGNMENTS[name])) - tried)
    assert not missing, f"{name}: no no-work case for task(s) {missing}"


@pytest.mark.parametrize("name, path", CASES, ids=[f"{n}-{c.stem}" for n, c in CASES])
def test_no_work_earns_no_points(name, path, tmp_path):
    assignment, case = ASSIGNMENTS[name], read_case(path)
    task, exceptions = case.task, case.exceptions
    started = time.monotonic()
    grade = grade_root(assignment, assemble(assignment, case, tmp_path), task=task)
    seconds = time.monotonic() - started
    ids = {t.id for t in grade.tests}
    assert grade.tests, f"{name} task {task} has no tests"
    assert not set(exceptions) - ids, f"exceptions that are not tests of task {task}: " \
        f"{sorted(set(exceptions) - ids)}"
    earned = [f"{t.visibility}/{t.id} ({t.max_points:g} points)" for t in grade.tests
              if t.passed and t.id not in exceptions]
    assert not earned, (f"{case.name} does none of task {task}'s work but earns points "
                        f"({seconds:.1f} s):\n" + "\n".join(earned))
    heavy = [f"{t.id} ({t.max_points:g} points)" for t in grade.tests
             if t.id in exceptions and t.max_points > 1]
    assert not heavy, f"an exception may be worth at most one point: {heavy}"
