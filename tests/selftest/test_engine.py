"""The grading engine on the toy assignment: scoring, hints, bad input, the trust boundary."""

import csv
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest
from helpers import SOLUTION, grade_root, submission

from autograder import cli
from autograder.assignments import load
from autograder.authoring.goldens import GoldenError, generate, stale_report
from autograder.backends.run_folder import prepare_run_dir
from autograder.grading.cause_text import sentence
from autograder.grading.report import SCHEMA_PATH, results_json


def by_id(grade):
    return {t.id: t for t in grade.tests}


def test_solution_full_marks_starter_zero(toy):
    assert grade_root(toy, toy.solutions).score == 7
    assert grade_root(toy, toy.starter).score == 0


def test_mutant_hint_fires_on_hidden_and_public(toy, tmp_path):
    sub = submission(tmp_path, SOLUTION.replace("return a + b", "return a - b"))
    grade = grade_root(toy, sub)
    tests = by_id(grade)
    assert not tests["test_add"].passed and tests["test_mean"].passed
    assert any("sign of the second operand" in h for h in tests["test_add"].hints)


def test_named_check_accepts_any_valid_order(toy, tmp_path):
    stable_reversed_ties = SOLUTION.replace(
        "return sorted(range(len(xs)), key=lambda i: xs[i])",
        "return sorted(range(len(xs)), key=lambda i: (xs[i], -i))")
    assert by_id(grade_root(toy, submission(tmp_path, stable_reversed_ties)))[
        "test_order"].passed


def test_hidden_failure_shows_no_values(toy, tmp_path):
    sub = submission(tmp_path, SOLUTION.replace("/ len(xs)", "/ (len(xs) - 1)"))
    test = by_id(grade_root(toy, sub))["test_mean"]
    assert not test.passed
    assert test.message == "Hidden test failed."


@pytest.mark.parametrize("source, expected", [
    ("def add(:\n", "SyntaxError in toy/__init__.py, line 1"),
    ("import statistics\n" + SOLUTION, "imports 'statistics', which this assignment forbids"),
])
def test_static_rejections_give_zero_and_a_clear_message(toy, tmp_path, source, expected):
    grade = grade_root(toy, submission(tmp_path, source))
    assert grade.score == 0
    assert any(expected in sentence(p) for p in grade.problems)


@pytest.mark.parametrize("init, helper, expected", [
    ("raise RuntimeError('boom')\n", None, "RuntimeError: boom (toy/__init__.py:1)"),
    ("from .helper import x\n", "raise ValueError('bad helper')\n",
     "ValueError: bad helper (toy/helper.py:1)"),
    ("import no_such_module_here\n", None, "No module named 'no_such_module_here'"),
])
def test_import_time_crash_fails_every_test_with_the_reason(toy, tmp_path, init, helper,
                                                           expected):
    """A package that does not import (in any of its modules) is graded in one child: every
    test, hidden ones included, fails, and the one import error is the only problem (no
    hidden child is started to fail the same way)."""
    sub = submission(tmp_path, init)
    if helper is not None:
        (sub / "toy" / "helper.py").write_text(helper)
    grade = grade_root(toy, sub)
    assert grade.score == 0 and {t.visibility for t in grade.tests} == {"public", "hidden"}
    assert not any(t.passed for t in grade.tests)
    problems = [sentence(p) for p in grade.problems]
    assert len(problems) == 1 and "importing your package failed" in problems[0]
    assert expected in problems[0], problems


def test_endless_loop_costs_only_that_test(toy, tmp_path):
    source = SOLUTION.replace('    if not xs:\n        raise ValueError("mean of nothing")',
                              "    while not xs:\n        pass")
    grade = grade_root(toy, submission(tmp_path, source))
    tests = by_id(grade)
    assert "timed out" in tests["test_mean_of_nothing"].message
    assert tests["test_add"].passed and tests["test_order"].passed and tests["test_mean"].passed


def test_process_exit_mid_test_costs_only_that_test(toy, tmp_path):
    source = SOLUTION.replace('    if not xs:\n        raise ValueError("mean of nothing")',
                              "    if not xs:\n        import os; os._exit(0)")
    tests = by_id(grade_root(toy, submission(tmp_path, source)))
    assert not tests["test_mean_of_nothing"].passed
    assert "died" in tests["test_mean_of_nothing"].message
    assert tests["test_order"].passed and tests["test_mean"].passed


def test_lying_objects_earn_nothing(toy, tmp_path):
    liar = ("class Liar(float):\n    def __eq__(self, o): return True\n"
            "    def __bool__(self): return True\n"
            "def add(a, b): return Liar(0)\n"
            "def mean(xs): return Liar(0)\n"
            "def order(xs): return Liar(0)\n")
    assert grade_root(toy, submission(tmp_path, liar)).score == 0


def test_missing_package(toy, tmp_path):
    (tmp_path / "empty").mkdir()
    grade = grade_root(toy, tmp_path / "empty")
    assert grade.score == 0 and "no 'toy' package found" in sentence(grade.problems[0])


def test_run_folder_holds_no_goldens_or_solutions(toy):
    run = prepare_run_dir(toy, toy.solutions, ("public", "hidden"), None)
    names = {p.name for p in run.rglob("*")}
    assert "goldens" not in names and "solutions" not in names and "checks.py" not in names
    assert not any(n.startswith("grade") for n in names)


@pytest.fixture
def course_copy(toy_course, tmp_path) -> Path:
    """A writable copy of the toy course (with goldens), for tests that change it."""
    root = tmp_path / "course"
    shutil.copytree(toy_course, root)
    return root


def test_graded_test_without_observation_is_rejected(course_copy):
    root = course_copy
    (root / "tests/toy/public/test_empty.py").write_text(
        "from autograder.harness import graded\n\n@graded(points=1)\n"
        "def test_nothing(rec):\n    pass\n")
    with pytest.raises(GoldenError, match="at least one observation"):
        generate(load("toy", root), with_mutants=False)


def test_stale_goldens_are_detected(course_copy):
    root = course_copy
    toy = load("toy", root)
    assert stale_report(toy) == []
    init = root / "solutions/toy/__init__.py"
    init.write_text(init.read_text().replace("return a + b", "return a + b + 1e-9"))
    assert any("test_add" in p for p in stale_report(toy))


def test_results_json_validates_against_gradescope_schema(toy):
    grades = [grade_root(toy, toy.starter)]
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.validate(results_json(grades, 1.0), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"score": "ten", "tests": []}, schema)


@pytest.mark.parametrize("entry", ["../evil.py", "/etc/evil.py"])
def test_zip_with_path_traversal_is_rejected(tmp_path, entry):
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr(entry, "x = 1\n")
    out = tmp_path / "out"
    assert cli.main(["grade", str(bad), "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["score"] == 0 and "outside the submission" in results["output"]


def test_broken_zip_still_writes_results(tmp_path):
    bad = tmp_path / "broken.zip"
    bad.write_bytes(b"PK\x03\x04 this is not really a zip")
    out = tmp_path / "out"
    assert cli.main(["grade", str(bad), "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["score"] == 0 and "rejected" in results["output"]


def test_local_mode_compares_at_once_and_names_the_hint(course_copy):
    """`pytest tests/<a>/public --impl DIR`: the same test file, checked immediately."""
    root = course_copy
    shutil.copy(Path(__file__).parent.parent / "conftest.py", root / "tests" / "conftest.py")
    init = root / "solutions/toy/__init__.py"

    def run():
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "tests/toy/public", "--impl", "solutions"], cwd=root,
                              capture_output=True, text=True, timeout=120)

    assert run().returncode == 0
    init.write_text(init.read_text().replace("return a + b", "return a - b"))
    result = run()
    assert result.returncode == 1
    assert "Hint: add subtracts" in result.stdout


def test_bulk_grades_resumes_and_reports(toy_course, tmp_path, monkeypatch):
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(toy_course))
    subs = tmp_path / "subs"
    long_solution = SOLUTION + "".join(f"\n\ndef helper_{i}(x):\n    return x * {i} + 1\n"
                                       for i in range(12))
    submission(subs, long_solution, "alice")
    submission(subs, long_solution.replace("xs", "values"), "bob")  # a renamed copy
    submission(subs, SOLUTION.replace("return a + b", "return a - b"), "carol")
    with zipfile.ZipFile(subs / "dave.zip", "w") as zf:
        zf.writestr("toy/__init__.py", "def add(:\n")
    out = tmp_path / "out"
    assert cli.main(["bulk", str(subs), "--assignment", "toy", "--jobs", "2",
                     "--out", str(out)]) == 0
    rows = {r["student"]: r for r in csv.DictReader(open(out / "grades.csv"))}
    assert {s: float(r["score"]) for s, r in rows.items()} == \
        {"alice": 7, "bob": 7, "carol": 5, "dave": 0}
    report = (out / "class_report.md").read_text()
    assert "alice ~ bob" in report and "add subtracts" in report
    before = (out / "alice" / "results.json").stat().st_mtime_ns
    assert cli.main(["bulk", str(subs), "--assignment", "toy", "--out", str(out)]) == 0
    assert (out / "alice" / "results.json").stat().st_mtime_ns == before  # resumed, not redone


def test_student_release_holds_no_answers_and_checks_locally(toy_course, tmp_path,
                                                             monkeypatch):
    course = tmp_path / "course"
    shutil.copytree(toy_course, course)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q"], cwd=course, check=True)
    subprocess.run([*git, "add", "-A"], cwd=course, check=True)
    subprocess.run([*git, "commit", "-qm", "toy"], cwd=course, check=True)
    (course / "tests/toy/untracked.txt").write_text("not committed")  # stays out
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(course))
    dest = tmp_path / "release"
    assert cli.main(["release", str(dest)]) == 0
    files = {p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()}
    assert "tests/toy/goldens/public.json" in files and "starter/toy/__init__.py" in files
    assert not [f for f in files if f.startswith("solutions/") or "hidden" in f]
    assert "tests/toy/untracked.txt" not in files and (tmp_path / "release.tar.gz").exists()
    env = {**os.environ, "TRAINING_SYSTEMS_ROOT": str(dest)}
    result = subprocess.run([sys.executable, "-m", "autograder", "check", "toy"], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "toy: 0 / 4" in result.stdout  # 1: not full points


def test_golden_generation_fails_loudly_when_collection_fails(course_copy):
    root = course_copy
    (root / "tests/toy/public/test_dup.py").write_text(
        "from autograder.harness import graded\n\n@graded(points=1)\n"
        "def test_add(rec):\n    rec.exact('x', 1)\n")
    with pytest.raises(GoldenError, match="share the id"):
        generate(load("toy", root), with_mutants=False)


def test_the_graders_parses_run_one_at_a_time(monkeypatch):
    """CPython 3.11's AST constructor keeps its recursion depth per interpreter: two threads'
    parses at once can raise a spurious SystemError (seen once in a pytest worker, in a zygote's
    preload list). Every parse of the grader goes through sandbox.threadsafe_ast.parse, which lets one
    run at a time: here, with ast.parse slowed down, four threads never overlap."""
    import ast
    import threading
    import time

    from autograder.sandbox import threadsafe_ast

    inside, most, lock = [0], [0], threading.Lock()
    real = ast.parse

    def slow(*args, **kwargs):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.05)
        with lock:
            inside[0] -= 1
        return real(*args, **kwargs)

    monkeypatch.setattr(threadsafe_ast.ast, "parse", slow)
    threads = [threading.Thread(target=threadsafe_ast.parse, args=("x = 1",)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert most[0] == 1
