"""The nbgrader course, run for real on one assignment (minigrad): `nbgrader generate_assignment`,
three students' submissions (complete, untouched starter, partial), `nbgrader autograde`, the
scores in gradebook.db equal to our engine's per task, the written answers left for the
formgrader, and feedback pages that name hints but nothing of the hidden tests."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder import service
from autograder.assignments import load
from autograder.mutants import load_mutants, materialize
from autograder.nbgrader_course import (
    COURSE_ID,
    SETUP_CELL_ID,
    build_course,
    lab_notebook,
    task_cell_id,
    tasks_of,
    written_questions,
)
from autograder.store import load_store

ASSIGNMENT = "minigrad"
BROKEN = "tanh_grad_from_input"  # the partial student's one broken function
STUDENTS = ("complete", "starter", "partial")
STEP_TIMEOUT = 300  # seconds, per nbgrader command


def _nbgrader(course: Path, env: dict, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                          capture_output=True, text=True, timeout=STEP_TIMEOUT)
    assert done.returncode == 0, f"nbgrader {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def _jupyter_env(tmp: Path) -> dict:
    """Jupyter dirs of our own, and a python3 kernelspec that is this venv's python."""
    env = dict(os.environ)
    for name in ("JUPYTER_DATA_DIR", "JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        env[name] = str(tmp / name.lower())
    env["JUPYTER_PATH"] = env["JUPYTER_DATA_DIR"]
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env["PATH"] = _venv_path()
    kernel = tmp / "jupyter_data_dir" / "kernels" / "python3"
    kernel.mkdir(parents=True)
    (kernel / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (course venv)", "language": "python"}))
    return env


def _venv_path() -> str:
    """PATH with this venv's bin first: nbgrader's Gradebook runs the `alembic` command."""
    return os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def _answer(notebook: Path, text: str, forge: bool = False) -> None:
    """Write `text` into every answer cell; with `forge`, also add a code cell before the first
    task cell that rebinds `lab` to claim full marks (autograde must drop it)."""
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = text
    if forge:
        points = {t.number: t.points for t in tasks_of(load(ASSIGNMENT))}
        first = next(i for i, c in enumerate(nb.cells)
                     if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("task_"))
        nb.cells.insert(first, nbformat.v4.new_code_cell(
            f"class Forged:\n    def task(self, number):\n        return {points!r}[number]\n\n"
            "lab = Forged()"))
    nbformat.write(nb, notebook)


def _run_course(tmp: Path) -> tuple[Path, dict[str, Path]]:
    """The course after generate_assignment, autograde and generate_feedback of three
    students; with each student's package folder (a copy, for our own grading)."""
    course = build_course(tmp / "course", [ASSIGNMENT])
    env = _jupyter_env(tmp)
    _nbgrader(course, env, "generate_assignment", ASSIGNMENT)
    a = load(ASSIGNMENT)
    released = course / "release" / ASSIGNMENT
    packages = {}
    for student in STUDENTS:
        home = course / "submitted" / student / ASSIGNMENT
        shutil.copytree(released, home)
        if student == "complete":
            shutil.rmtree(home / a.package)
            shutil.copytree(a.solutions / a.package, home / a.package)
        elif student == "partial":
            shutil.rmtree(home / a.package)
            materialize(a, next(m for m in load_mutants(a) if m.name == BROKEN), home)
        if student != "starter":
            _answer(home / f"{ASSIGNMENT}.ipynb", f"{student}'s answer: gradients add up.",
                    forge=student == "partial")
        packages[student] = tmp / "packages" / student
        shutil.copytree(home / a.package, packages[student] / a.package)
    _nbgrader(course, env, "autograde", ASSIGNMENT)
    _nbgrader(course, env, "generate_feedback", ASSIGNMENT)
    return course, packages


def _task_scores(results: service.Results) -> dict[str, float]:
    scores: dict[str, float] = {}
    for t in results.grades[0].tests:
        scores[task_cell_id(t.task)] = scores.get(task_cell_id(t.task), 0.0) + t.points
    return scores


def test_the_source_notebook_has_hand_graded_questions_and_one_cell_per_task():
    a = load(ASSIGNMENT)
    nb = lab_notebook(a, written_questions()[a.name])
    meta = [c.metadata["nbgrader"] for c in nb.cells if "nbgrader" in c.metadata]
    by_id = {m["grade_id"]: m for m in meta}
    questions = written_questions()[ASSIGNMENT]
    assert 1 <= len(questions) <= 3
    for q in questions:
        assert by_id[f"q_{q['id']}"] == {"grade": True, "solution": True, "locked": False,
                                         "grade_id": f"q_{q['id']}", "points": q["points"],
                                         "schema_version": 3}
    tasks = tasks_of(a)
    assert [m["points"] for m in meta if m["grade_id"].startswith("task_")] == \
        [t.points for t in tasks]
    assert sum(t.points for t in tasks) == sum(
        s.points for v in ("public", "hidden") for s in load_store(a, v).tests.values())
    assert by_id[SETUP_CELL_ID]["locked"] and not by_id[SETUP_CELL_ID]["grade"]


def test_nbgrader_autogrades_with_our_scores_and_hides_the_hidden_tests(tmp_path, monkeypatch):
    """One test (xdist would run a module fixture once per worker): the whole nbgrader round."""
    root, packages = _run_course(tmp_path)
    a = load(ASSIGNMENT)
    task_points = {task_cell_id(t.number): t.points for t in tasks_of(a)}
    monkeypatch.setenv("PATH", _venv_path())
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", COURSE_ID) as gb:
        for student in STUDENTS:
            ours = _task_scores(service.grade(packages[student], [ASSIGNMENT]))
            assert set(ours) == set(task_points)
            recorded = {cell: gb.find_grade(cell, ASSIGNMENT, ASSIGNMENT, student).auto_score
                        for cell in ours}
            assert recorded == pytest.approx(ours), student
            if student == "complete":
                assert ours == task_points
            elif student == "starter":
                assert set(ours.values()) == {0.0}
            else:  # the broken function costs some tasks part of their points, not all
                assert any(0 < ours[t] < p for t, p in task_points.items()), ours
            for q in written_questions()[ASSIGNMENT]:  # left for the formgrader
                grade = gb.find_grade(f"q_{q['id']}", ASSIGNMENT, ASSIGNMENT, student)
                assert grade.max_score == q["points"]
                if student == "starter":  # an untouched answer cell: nbgrader gives it 0
                    assert (grade.auto_score, grade.needs_manual_grade) == (0, False)
                else:
                    assert grade.auto_score is None and grade.needs_manual_grade, student
    hidden = set(load_store(a, "hidden").tests) - set(load_store(a, "public").tests)
    assert hidden
    hint = next(m.hint for m in load_mutants(a) if m.name == BROKEN)
    for student in STUDENTS:
        page = root / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"
        text = html.unescape(page.read_text(encoding="utf-8"))
        leaked = sorted(t for t in hidden if re.search(rf"\b{re.escape(t)}\b", text))
        assert not leaked, f"{student}'s feedback names hidden tests {leaked}"
        assert "/hidden/" not in text and "hidden.json" not in text
        if student == "partial":
            assert hint in " ".join(text.split()), "the broken function's hint is not shown"
            assert "hidden tests:" in text
        if student == "starter":
            assert "not implemented yet" in text
