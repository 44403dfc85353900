"""Adversarial corpus for multi-assignment `grade`: one submission (a zip, or a folder as
Gradescope hands it over) holding two assignment packages, `toy` attacked and `toy2`
untouched (a correct solution).

Each case: the untouched assignment keeps its full marks, the attacked one scores no more
than its own code earns and is told why in a line of its report, results.json parses as strict
UTF-8, and the grader finishes inside the run limit. docs/SECURITY.md names the layer that
stops each case (intake, engine, report).
"""

from __future__ import annotations

import json
import os
import shutil
import time
import zipfile
from pathlib import Path

import pytest
from helpers import SOLUTION, grade_results

from autograder.assignments import load
from autograder.authoring.goldens import generate
from autograder.grading import pipeline
from autograder.grading.report import write_instructor, write_results
from autograder.settings import COURSE_ROOT

STARTER = (Path(__file__).parent / "toy_course" / "starter" / "toy" / "__init__.py").read_text()
FULL = 7
MEAN_HINT = "mean divides by n - 1 (the sample correction) where the plain mean is asked for."
FLOOD = '''
import json, sys
try:
    _path = json.load(open(sys.argv[1]))["events"]
    with open(_path, "a") as _f:
        for _i in range(20000):
            _f.write(json.dumps({"ev": "collect_error", "file": f"t{_i}.py",
                                 "error": f"{_i} " + "E" * 1500}) + "\\n")
except Exception:
    pass
'''
CONFTEST = '''
import pytest
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
'''


@pytest.fixture(scope="module")
def course(toy_course, tmp_path_factory) -> Path:
    """The toy course plus `toy2`: the same tests on a package of another name, with a mutant
    that only its hidden test catches (for the hidden-hint case)."""
    root = tmp_path_factory.mktemp("multi") / "course"
    shutil.copytree(toy_course, root)
    tests = root / "tests" / "toy2"
    shutil.copytree(root / "tests" / "toy", tests)
    shutil.rmtree(tests / "goldens", ignore_errors=True)
    shutil.rmtree(tests / "inputs", ignore_errors=True)
    toml = tests / "assignment.toml"
    toml.write_text(toml.read_text().replace('package = "toy"', 'package = "toy2"')
                    .replace("number = 99", "number = 98")
                    .replace("test_timeout = 3", "test_timeout = 60\nmeasured_timeouts = false")
                    .replace("run_timeout = 60", "run_timeout = 300"))
    for f in [*tests.glob("public/*.py"), *tests.glob("hidden/*.py")]:
        f.write_text(f.read_text().replace("import toy\n", "import toy2 as toy\n"))
    for kind in ("solutions", "starter"):
        shutil.copytree(root / kind / "toy", root / kind / "toy2")
    mutants = root / "solutions" / "mutants"
    (mutants / "toy2.toml").write_text(
        (mutants / "toy.toml").read_text() + f'\n[[mutants]]\nname = "sample_mean"\n'
        f'hint = "{MEAN_HINT}"\n[[mutants.edits]]\nfile = "__init__.py"\n'
        f'old = "return sum(xs) / len(xs)"\nnew = "return sum(xs) / (len(xs) - 1)"\n')
    first = root / "tests" / "toy" / "assignment.toml"
    first.write_text(first.read_text().replace("test_timeout = 3", "test_timeout = 60\nmeasured_timeouts = false")
                     .replace("run_timeout = 60", "run_timeout = 300"))
    generate(load("toy2", root))
    return root


def write(path: Path, text: str | bytes = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)


def good_toy2(sub: Path) -> None:
    write(sub / "toy2" / "__init__.py", SOLUTION)


def imports_other(sub: Path) -> None:  # toy borrows toy2's code
    good_toy2(sub)
    write(sub / "toy" / "__init__.py", "from toy2 import add, mean, order  # noqa\n")


def planted_engine(sub: Path) -> None:  # the engine, numpy, torch, pytest planted beside
    good_toy2(sub)
    write(sub / "toy" / "__init__.py", STARTER)
    for name in ("autograder", "numpy", "torch", "pytest", "toy/numpy"):
        write(sub / name / "__init__.py", "raise SystemExit('planted')\n")
    write(sub / "autograder" / "harness" / "__init__.py", "FORGED = True\n")


def duplicates(sub: Path) -> None:  # toy at the root and a full-marks copy one folder down
    good_toy2(sub)
    write(sub / "toy" / "__init__.py", STARTER)
    write(sub / "copy" / "toy" / "__init__.py", SOLUTION)
    write(sub / "copy" / "toy2" / "__init__.py", STARTER)  # toy2's root copy wins


def package_is_file(sub: Path) -> None:
    good_toy2(sub)
    write(sub / "toy", SOLUTION)
    write(sub / "toy.py", SOLUTION)


def init_is_folder(sub: Path) -> None:
    good_toy2(sub)
    (sub / "toy" / "__init__.py").mkdir(parents=True)
    write(sub / "toy" / "core.py", SOLUTION)


def symlinked(sub: Path) -> None:  # toy -> toy2's folder; toy/__init__.py -> a host file
    good_toy2(sub)
    os.symlink(sub / "toy2", sub / "toy")
    write(sub / "other" / "toy" / "x.py", "")
    os.symlink("/etc/passwd", sub / "other" / "toy" / "__init__.py")


def conftest_and_ini(sub: Path) -> None:  # pytest config that would turn failures into passes
    good_toy2(sub)
    write(sub / "toy" / "__init__.py", STARTER)
    for where in ("toy", "."):
        write(sub / where / "conftest.py", CONFTEST)
        write(sub / where / "pytest.ini", "[pytest]\naddopts = -p no:autograder\n")
        write(sub / where / "setup.cfg", "[tool:pytest]\naddopts = --co\n")


def site_customize(sub: Path) -> None:
    good_toy2(sub)
    write(sub / "toy" / "__init__.py", STARTER)
    for where in ("toy", "."):
        write(sub / where / "sitecustomize.py", "import os; os._exit(0)\n")
        write(sub / where / "usercustomize.py", "import os; os._exit(0)\n")
        write(sub / where / "evil.pth", "import os; os._exit(0)\n")


def huge_and_sparse(sub: Path) -> None:  # 40 GiB sparse files, inside the package and beside
    good_toy2(sub)
    write(sub / "toy" / "__init__.py", SOLUTION)
    for path in (sub / "data.bin", sub / "toy" / "weights.bin", sub / "toy" / "big.py"):
        with open(path, "wb") as f:
            f.truncate(40 * 2**30)


def odd_names(sub: Path) -> None:  # not UTF-8, newlines, markup, a leading dash, very long
    good_toy2(sub)
    write(sub / "toy" / "__init__.py", SOLUTION)
    base = os.fsencode(sub / "toy")
    for raw in (b"caf\xe9.txt", b"new\nline.txt", b"[bold]x[-].txt", b"-rf.txt", b"x" * 250):
        with open(os.path.join(base, raw), "wb") as f:
            f.write(b"1")
    os.mkfifo(sub / "toy" / "notes.py")
    write(sub / os.fsdecode(b"\xff") / "toy" / "__init__.py", STARTER)


def event_flood(sub: Path) -> None:  # 20,000 collection errors from toy's child
    good_toy2(sub)
    write(sub / "toy" / "__init__.py", FLOOD + SOLUTION)


# case -> (builder, zipped, most points toy may get, text the attacked toy's report shows)
CASES = {
    "imports_other": (imports_other, True, 0, "toy2"),
    "planted_engine": (planted_engine, True, 0, "refused toy/numpy/__init__.py"),
    "duplicates": (duplicates, True, 0, "also found copy/toy/: not graded"),
    "package_is_file": (package_is_file, True, 0, "toy.py is a file"),
    "init_is_folder": (init_is_folder, False, 0, "found toy/ without __init__.py"),
    "symlinked": (symlinked, False, 0, "toy is a symbolic link"),
    "conftest_and_ini": (conftest_and_ini, True, 0, "refused toy/conftest.py"),
    "site_customize": (site_customize, True, 0, "refused toy/sitecustomize.py"),
    "huge_and_sparse": (huge_and_sparse, False, 0, "toy/big.py is larger than"),
    "odd_names": (odd_names, False, FULL, "caf\\xe9.txt"),
    "event_flood": (event_flood, True, FULL, "more collection errors cut"),
}


def build(case: str, tmp_path: Path) -> Path:
    builder, zipped, _, _ = CASES[case]
    folder = tmp_path / "submission"
    folder.mkdir()
    builder(folder)
    if not zipped:
        return folder
    path = tmp_path / "submission.zip"
    with zipfile.ZipFile(path, "w") as zf:
        for f in sorted(folder.rglob("*")):
            zf.write(f, f.relative_to(folder).as_posix())
    return path


@pytest.mark.parametrize("parallel", [1, 2])
@pytest.mark.parametrize("case", sorted(CASES))
def test_attack_on_one_assignment_spares_the_other(case, parallel, course, tmp_path,
                                                   monkeypatch):
    """Graded one assignment after the other, and both at once (`parallel=2`: the attacked
    package's children run beside the untouched one's)."""
    monkeypatch.setenv(COURSE_ROOT.name, str(course))
    _, _, most, said = CASES[case]
    sub = build(case, tmp_path)
    started = time.monotonic()
    results = grade_results(sub, parallel=parallel)
    seconds = time.monotonic() - started
    grades = {g.assignment.name: g for g in results.grades}
    assert "toy2" in grades, results.problems
    assert grades["toy2"].score == FULL, [t.message for t in grades["toy2"].tests]
    assert grades["toy"].score <= most if "toy" in grades else most == 0
    data = results.gradescope()
    raw = (write_results(tmp_path / "out", data)).read_bytes()
    shown = json.loads(raw.decode("utf-8"))  # strict
    toy_lines = shown["output"].splitlines() + [
        t["output"] for t in shown["tests"] if t["name"].startswith("toy ·")]
    assert any(said in line for line in toy_lines), shown["output"]
    assert len(raw) < 2 * 2**20  # two assignments, 1 MiB each
    assert seconds < load("toy", course).run_timeout


def test_hidden_hint_stays_with_the_instructor(course, tmp_path, monkeypatch):
    """A mutant caught only by a hidden test: its hint is in OUT/instructor.json, nowhere in
    results.json."""
    monkeypatch.setenv(COURSE_ROOT.name, str(course))
    sub = tmp_path / "sub"
    write(sub / "toy2" / "__init__.py",
          SOLUTION.replace("return sum(xs) / len(xs)", "return sum(xs) / (len(xs) - 1)"))
    results = grade_results(sub, ["toy2"])
    mean = next(t for t in results.grades[0].tests if t.id == "test_mean")
    assert not mean.passed and mean.hints == [MEAN_HINT]  # the instructor's in-memory record
    out = tmp_path / "out"
    shown = write_results(out, results.gradescope()).read_text()
    assert MEAN_HINT not in shown and "sample correction" not in shown
    hidden = [t for t in json.loads(shown)["tests"] if t["name"].endswith("· test_mean")]
    assert [t["output"] for t in hidden] == ["Hidden test failed."]
    record = json.loads(write_instructor(out, results.instructor()).read_text())
    assert MEAN_HINT in record["hints"]["toy2 · Task 2: add and mean · test_mean"]


def test_class_report_counts_hidden_hints_results_json_does_not_show_them(course, tmp_path,
                                                                           monkeypatch):
    from autograder.classroom.bulk import run_bulk
    from autograder.sandbox import SandboxPolicy

    monkeypatch.setenv(COURSE_ROOT.name, str(course))
    subs, out = tmp_path / "subs", tmp_path / "out"
    write(subs / "alice" / "toy2" / "__init__.py",
          SOLUTION.replace("return sum(xs) / len(xs)", "return sum(xs) / (len(xs) - 1)"))
    run_bulk(subs, "toy2", out, 1, SandboxPolicy.create())
    assert MEAN_HINT not in (out / "alice" / "results.json").read_text()
    assert MEAN_HINT in (out / "alice" / "instructor.json").read_text()
    assert f"1 student: {MEAN_HINT}" in (out / "class_report.md").read_text()


def test_parallel_grading_keeps_a_submissions_public_and_hidden_children_apart(
        course, tmp_path, monkeypatch):
    """`grade(parallel=2)` (pipeline._grade_parts): the assignments' public children run side
    by side (a barrier breaks unless the two graded public runs overlap), no public child of
    the submission runs while one of its hidden children does (toy2's public run is held 2 s
    longer: grading each assignment's phases in one go would start toy's hidden run inside
    it), and the grades are those of one assignment after the other."""
    import threading

    monkeypatch.setenv(COURSE_ROOT.name, str(course))
    sub = tmp_path / "sub"
    write(sub / "toy" / "__init__.py", SOLUTION)
    write(sub / "toy2" / "__init__.py", SOLUTION.replace("return sum(xs) / len(xs)",
                                                         "return sum(xs) / (len(xs) - 1)"))
    real, lock, spans = pipeline.backends.run, threading.Lock(), []
    both_public = threading.Barrier(2, timeout=30)
    first_grade = [True]

    def recorded(request, placement=None):
        public = request.visibilities == ("public",)
        if public and request.graded_public and first_grade[0]:
            both_public.wait()
        start = time.monotonic()
        try:
            result = real(request, placement)
            if public and request.assignment.name == "toy2":
                time.sleep(2.0)
            return result
        finally:
            with lock:
                spans.append((request.visibilities, start, time.monotonic()))

    monkeypatch.setattr(pipeline.backends, "run", recorded)
    parallel = grade_results(sub, parallel=2)
    public = [(s, e) for v, s, e in spans if v == ("public",)]
    hidden = [(s, e) for v, s, e in spans if v == ("hidden",)]
    # each assignment's hidden run on the draw, and toy2's failing one again for its hints
    assert len(hidden) >= 2 and len(public) >= 2
    assert all(pe <= hs or he <= ps for ps, pe in public for hs, he in hidden), spans
    first_grade[0] = False
    sequential = grade_results(sub)

    def outcome(results):
        return [(g.assignment.name, g.score, [(t.id, t.passed, t.hints) for t in g.tests])
                for g in results.grades]

    assert outcome(parallel) == outcome(sequential)
    scores = {g.assignment.name: g.score for g in parallel.grades}
    assert scores["toy"] == FULL and scores["toy2"] < FULL
