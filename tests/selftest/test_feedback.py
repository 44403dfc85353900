"""Student feedback on the toy assignment: the report is organized by handout task, failures
speak the student's terms, hints are ranked, a hang costs only the tests that reach it.

The snapshot tests render the `check` report for one classic mistake each and compare it with
tests/selftest/snapshots/<kind>.txt, so any wording change shows in review. After an intended
change: `UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/selftest/test_feedback.py`.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import SOLUTION, grade_root, submission
from rich.console import Console

from autograder import cli
from autograder.backends import runner, timeouts
from autograder.grading import store
from autograder.grading.compare import Observed
from autograder.grading.hints import ranked_hints
from autograder.grading.report import print_report, results_json
from autograder.grading.tasks import natural_key, task_of_file

SNAPSHOTS = Path(__file__).parent / "snapshots"
STARTER = (Path(__file__).parent / "toy_course/starter/toy/__init__.py").read_text()
ADD = "def add(a: float, b: float) -> float:\n    return a + b\n"
EMPTY_MEAN = '    if not xs:\n        raise ValueError("mean of nothing")'
KINDS = {
    "syntax_error": SOLUTION.replace("return a + b", "return (a + b"),
    "import_crash": "import math\n\nLIMIT = math.sqrt(-1)\n" + SOLUTION,
    "forbidden_static": "import statistics\n" + SOLUTION,
    "forbidden_dynamic": SOLUTION.replace(ADD, "def add(a: float, b: float) -> float:\n"
                                          "    helper = __import__('statis' + 'tics')\n"
                                          "    return helper.fsum([a, b])\n"),
    "stub_left": STARTER,
    "wrong_value": SOLUTION.replace("return a + b", "return a - b"),
    "timeout": SOLUTION.replace("return a + b", "while True: pass"),  # one line: one location
    "crash": SOLUTION.replace(EMPTY_MEAN, "    if not xs:\n        import os\n"
                                          "        os._exit(3)"),
}



def rendered(grade) -> str:
    out = io.StringIO()
    print_report([grade], Console(file=out, width=100, color_system=None, force_terminal=False),
                 timing=False)
    return out.getvalue()


def assert_snapshot(kind: str, grade) -> None:
    text = re.sub(r"/tmp/\S+", "<tmp>", rendered(grade))
    path = SNAPSHOTS / f"{kind}.txt"
    if os.environ.get("UPDATE_SNAPSHOTS"):
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(text)
    assert text == path.read_text(), f"the {kind} report changed:\n{text}"


@pytest.mark.parametrize("kind", sorted(set(KINDS) - {"timeout"}))  # timeout: the hang test's
def test_message_snapshot(toy, tmp_path, kind):
    assert_snapshot(kind, grade_root(toy, submission(tmp_path, KINDS[kind]),
                                                ("public",)))


def test_report_follows_the_handout_tasks_and_hides_hidden_points(toy, tmp_path):
    grade = grade_root(toy, submission(tmp_path, KINDS["wrong_value"]))
    data = results_json([grade], 1.0)
    names = [t["name"] for t in data["tests"]]
    assert names[0] == "toy · Task 1: order · test_order"  # Task 1's file sorts last by name
    assert [t["number"] for t in data["tests"]] == ["99.1", "99.2", "99.3", "99.4"]
    assert data["output"].splitlines()[0] == (
        "toy: 2 / 4 public points (hidden tests are scored when grades are published)")
    assert not re.search(r"\b[57]\b", data["output"])  # totals with hidden points (5 / 7)
    hint = next(t for t in data["tests"] if t["name"].endswith("test_add"))["output"]
    assert hint.count("Hint:") == 1 and "sign of the second operand" in hint


def test_check_one_task_and_exit_status(toy_course, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(toy_course))
    half = submission(tmp_path, KINDS["wrong_value"])
    assert cli.main(["check", "toy", "--impl", str(half), "--isolation", "none"]) == 1
    assert cli.main(["check", "toy", "--impl", str(half), "--task", "1",
                     "--isolation", "none"]) == 0
    out = capsys.readouterr().out
    assert "Task 1: order  1 / 1 points" in out and "test_add" not in out.split("task 1")[-1]
    assert cli.main(["check", "toy", "--task", "7"]) == 2
    assert "no task 7 (its tasks: 1, 2)" in capsys.readouterr().err


def test_a_hang_costs_only_the_tests_that_reach_it(toy, tmp_path, monkeypatch):
    """The hang in add() and in mean([]) times out both tests of Task 2's file; with the
    restart cap at 1, the old engine left Task 1's test (the next file) not run."""
    monkeypatch.setattr(runner, "MAX_RESTARTS", 1)
    monkeypatch.setattr(timeouts, "machine_slowdown", lambda: 1.0)  # the snapshot's quiet limit
    source = KINDS["timeout"].replace(EMPTY_MEAN, "    while not xs: pass")
    started = time.monotonic()
    grade = grade_root(toy, submission(tmp_path, source))
    took = time.monotonic() - started
    tests = {t.id: t for t in grade.tests}
    assert "timed out" in tests["test_add"].message
    assert "timed out" in tests["test_mean_of_nothing"].message
    assert tests["test_order"].passed and tests["test_mean"].passed
    assert took < 2 * toy.test_timeout + 30  # two timeouts, plus child starts on a busy machine
    grade.tests = [t for t in grade.tests if t.visibility == "public"]
    assert_snapshot("timeout", grade)


def test_local_mode_applies_the_graded_timeout(toy_course, tmp_path):
    root = tmp_path / "course"
    shutil.copytree(toy_course, root)
    shutil.copy(Path(__file__).parent.parent / "conftest.py", root / "tests" / "conftest.py")
    submission(root, KINDS["timeout"])
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "tests/toy/public", "--impl", "sub"], cwd=root,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 1 and "Timeout" in result.stdout, result.stdout[-2000:]
    assert "1 failed, 2 passed" in result.stdout
    assert time.monotonic() - started < 60


def test_hints_best_match_first_and_at_most_two():
    golden = {n: store.ObservationSpec("exact", expected=v)
              for n, v in [("x", 1.5), ("y", 2.5), ("z", 3.5)]}
    test = store.TestSpec("t", 1.0, None, "test_t.py", golden, 1, "t")
    mutants = [store.MutantValues("far", "far", {"t": {"x": 10.5, "y": 20.5, "z": 30.5}}),
               store.MutantValues("other", "other", {"t": {"x": 10.5}}),
               store.MutantValues("near", "near", {"t": {"x": 10.5, "y": 20.5}}),
               store.MutantValues("twin", "twin", {"t": {"x": 10.5, "y": 20.5}}),
               store.MutantValues("triplet", "triplet", {"t": {"x": 10.5, "y": 20.5}}),
               store.MutantValues("unrelated", "unrelated", {"t": {"x": 99.5}})]
    observed = {"x": Observed(10.5), "y": Observed(20.5), "z": Observed(3.5)}  # 'near'
    hints = ranked_hints(test, observed, {"x", "y"}, mutants, None, None)
    # far fails z, which the student passes: contradicted; other explains x only, as many as it
    # leaves unexplained (y); near, twin and triplet fit both: the first two in order
    assert hints == ["near", "twin"]


def test_natural_order_and_task_docstrings():
    assert sorted(["v[10]", "v[2]", "v[1]"], key=natural_key) == ["v[1]", "v[2]", "v[10]"]
    course = Path(__file__).parent.parent
    landed = sorted(course.glob("*/public/test_*.py")) + sorted(course.glob("*/hidden/test_*.py"))
    assert landed and [f for f in landed if task_of_file(f) is None] == []


def test_reports_carry_whole_task_titles():
    """The stores keep a title cut to 60 characters; what reports read is whole, also when
    the docstring wraps it onto a second line (before: "run by real processes (gloo over…")."""
    from autograder.assignments import load

    titles = {a: {t.task: t.task_title for t in store.load_stores(load(a), ("public",))[
        "public"].tests.values()} for a in ("ddp", "fusion")}
    assert titles["ddp"][4] == "MiniDDP and train_step, run by real processes (gloo over 127.0.0.1)"
    assert titles["fusion"][4].endswith("(GPT-2 and Llama configs) that is exactly itself at "
                                        "initialisation")
