"""Forbidden means absent (issue 36, autograder/sandbox/view.py): a submission that delegates a
task to the library object a dotted rule names, found by a computed route (getattr on built
names, `__subclasses__()`, another function's `__globals__`, `gc.get_objects()`, walking
sys.modules, importlib by a built name; adversarial/forbidden_oracle.py), earns nothing on that
task's tests: in the child the object is a stub or does not exist. Without the view each case
earns points (`VIEWLESS=1` grades them so, to show it)."""

from __future__ import annotations

import os
import shutil
import tomllib
from pathlib import Path

import pytest

from autograder.assignments import load
from autograder.grading.judge import grade_submission_root
from autograder.sandbox.view import View

HERE = Path(__file__).resolve().parent
ORACLE = HERE / "adversarial" / "forbidden_oracle.py"
DELEGATES = tomllib.loads((HERE / "adversarial" / "forbidden_delegates.toml").read_text())
CASES = [(name, technique) for name, case in DELEGATES.items()
         for technique in case["techniques"]]


def pieces(text: str) -> str:
    """A string literal split in two-character pieces: no constant names the object."""
    return repr([text[i:i + 2] for i in range(0, len(text), 2)])


def hostile(assignment, case: dict, technique: str, dest: Path) -> Path:
    """The reference solution with one function delegating to the oracle found by `technique`."""
    package = dest / assignment.package
    shutil.copytree(assignment.solutions / assignment.package, package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    oracle = (ORACLE.read_text().replace("__TECHNIQUE__", technique)
              .replace("__MODULE__", pieces(case["module"]))
              .replace("__NAME__", pieces(case["name"]))
              .replace("__ANCHOR__", pieces(case["anchor"])))
    (package / "_oracle.py").write_text(oracle)
    with open(package / case["file"], "a", encoding="utf-8") as f:
        f.write(case["append"])
    return dest


def ids_of(assignment, test_file: str) -> frozenset[str]:
    ids = set()
    for visibility in ("public", "hidden"):
        path = assignment.tests_dir / visibility / test_file
        ids |= {line.split("(")[0][4:] for line in path.read_text().splitlines()
                if line.startswith("def test_")}
    return frozenset(ids)


@pytest.mark.parametrize("name, technique", CASES, ids=[f"{n}-{t}" for n, t in CASES])
def test_the_forbidden_object_is_not_found(name, technique, tmp_path, monkeypatch):
    viewless = bool(os.environ.get("VIEWLESS"))
    if viewless:  # the mutant: the sandbox without the view
        monkeypatch.setattr("autograder.sandbox.bwrap.child_view", lambda rules: View())
    assignment, case = load(name), DELEGATES[name]
    ids = ids_of(assignment, case["test_file"])
    grade = grade_submission_root(assignment, hostile(assignment, case, technique, tmp_path),
                                  ids=ids)
    assert grade.problems == [], grade.problems  # past intake: nothing static shows
    assert {t.id for t in grade.tests} == ids
    earned = [f"{t.visibility}/{t.id}" for t in grade.tests if t.passed]
    if viewless:
        assert earned, f"{name} by {technique} earns nothing even without the view"
    else:
        assert not earned, f"{name}: {case['name']} found by {technique}: {earned}"
