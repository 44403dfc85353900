"""A point is earned only by doing the work (issue 28, item 4).

Each folder tests/selftest/no_work/<assignment>/<case>/ holds a case.toml and a `<package>/`
folder: the reference solution with ONE handout task replaced by a shape-correct implementation
that does no work (a constant, input-blind output, a filter that stores nothing, a study that
never calls its callback, an entry point that raises everywhere, or a cheat that reads the
test's frames or rebinds what the test draws through). Its files are laid over
solutions/<package>/ (a full package lays over as itself). case.toml:

    task = 5                      # the handout task the case replaces
    exceptions = ["test_id"]      # tests of that task allowed to still pass (optional)

The case is graded with only that task's tests (public and hidden): every test outside
`exceptions` must fail, and each exception is worth at most one point and says why in its
docstring. New assignments add case folders; nothing is registered.
"""

from __future__ import annotations

import shutil
import time
import tomllib
from pathlib import Path

import pytest

from autograder.assignments import discover
from autograder.grading.judge import grade_submission_root, task_numbers

NO_WORK_DIR = Path(__file__).resolve().parent / "no_work"
ASSIGNMENTS = {a.name: a for a in discover()}
COVERED = ("minigrad", "bpe", "dedup", "scaling", "ddp", "repro")  # every task has a case


def no_work_cases() -> list[tuple[str, Path]]:
    """(assignment name, case folder) for every case folder present."""
    if not NO_WORK_DIR.is_dir():
        return []
    return [(a.name, c) for a in sorted(NO_WORK_DIR.iterdir()) if a.is_dir()
            for c in sorted(a.iterdir()) if (c / "case.toml").is_file()]


def read_case(folder: Path) -> tuple[int, list[str]]:
    """The case's task number and its exceptions."""
    data = tomllib.loads((folder / "case.toml").read_text(encoding="utf-8"))
    return int(data["task"]), [str(x) for x in data.get("exceptions", [])]


def assemble(assignment, folder: Path, dest: Path) -> Path:
    """A submission folder: solutions/<package>/ with the case's package files laid over it."""
    package = dest / assignment.package
    shutil.copytree(assignment.solutions / assignment.package, package,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    source = folder / assignment.package
    for path in sorted(source.rglob("*.py")):
        target = package / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return dest


CASES = no_work_cases()


def test_case_folders_are_well_formed():
    """Every case names an assignment that exists, a task it has, and holds its package."""
    assert CASES, "no case under tests/selftest/no_work/"
    for name, folder in CASES:
        assert name in ASSIGNMENTS, f"{folder}: no assignment {name!r}"
        assignment = ASSIGNMENTS[name]
        task, _ = read_case(folder)
        assert task in task_numbers(assignment), f"{folder}: {name} has no task {task}"
        assert any((folder / assignment.package).rglob("*.py")), \
            f"{folder}: no {assignment.package}/ files to lay over the reference"


@pytest.mark.parametrize("name", COVERED)
def test_every_task_has_a_no_work_case(name):
    """Each task of these assignments is tried by at least one implementation doing no work."""
    tried = {read_case(folder)[0] for n, folder in CASES if n == name}
    missing = sorted(set(task_numbers(ASSIGNMENTS[name])) - tried)
    assert not missing, f"{name}: no no-work case for task(s) {missing}"


@pytest.mark.parametrize("name, folder", CASES, ids=[f"{n}-{c.name}" for n, c in CASES])
def test_no_work_earns_no_points(name, folder, tmp_path):
    assignment = ASSIGNMENTS[name]
    task, exceptions = read_case(folder)
    started = time.monotonic()
    grade = grade_submission_root(assignment, assemble(assignment, folder, tmp_path), task=task)
    seconds = time.monotonic() - started
    ids = {t.id for t in grade.tests}
    assert grade.tests, f"{name} task {task} has no tests"
    assert not set(exceptions) - ids, f"exceptions that are not tests of task {task}: " \
        f"{sorted(set(exceptions) - ids)}"
    earned = [f"{t.visibility}/{t.id} ({t.max_points:g} points)" for t in grade.tests
              if t.passed and t.id not in exceptions]
    assert not earned, (f"{folder.name} does none of task {task}'s work but earns points "
                        f"({seconds:.1f} s):\n" + "\n".join(earned))
    heavy = [f"{t.id} ({t.max_points:g} points)" for t in grade.tests
             if t.id in exceptions and t.max_points > 1]
    assert not heavy, f"an exception may be worth at most one point: {heavy}"
