"""Causes as data (autograder/backends/causes.py): what went wrong travels as a `Cause` member
with fields, and only autograder/grading/cause_text.py turns it into a sentence. A module that
writes one of the renderer's sentences itself, or decides something by matching one, fails here.

Mutants that fail these tests: judge.py matching "is forbidden in this assignment" in a test's
error again; runner.py deciding "has the run already timed out" by `startswith("the whole run
exceeded")`; harness/plugin.py parsing the blocker's ImportError text with a regex, or a
collection error's traceback text for where it entered the package; pipeline.py grouping
problems by the last line of their text; judge.py taking a not-run reason from a problem's
rendered first line; intake.py writing its own sentence; a renderer sentence copied into
another module; an allow-list entry kept after its reason is gone.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import grade_root, submission

from autograder.backends.base import TestRecord as Record
from autograder.backends.causes import Cause, Reason
from autograder.grading.cause_text import first_line, sentence
from autograder.grading.judge import all_failed, raised_message
from autograder.grading.pipeline import dedupe

ENGINE = Path(__file__).resolve().parents[2] / "autograder"
RENDERER = "grading/cause_text.py"
# The renderer's sentences, or a distinctive part of each.
MARKERS = ("is forbidden in this assignment", "which this assignment forbids",
           "the whole run exceeded", "timed out after", "the test process died",
           "could not be loaded", "exited before running these tests",
           "importing your package failed", "could not be collected",
           "could not start the test process", "hang or crash in each", "more events cut",
           "more collection errors cut", "wrote more than the grader reads",
           "stopped before reaching it", "is missing from your package", "submission rejected: ",
           "no assignment package found", "not graded: no '", "package found (expected",
           "folders cannot be read", "too many or too large", "is missing or not a regular file",
           "SyntaxError in ", "cannot be parsed: ", "reference solution could not compute",
           "more test file(s)")
# (file, marker) -> why that file may hold the marker. Each is the child's own error text,
# raised beside a structured field (`graded_forbidden`, `graded_missing`) that is what the
# harness reports.
ALLOWED = {
    ("harness/boot.py", "is forbidden in this assignment"):
        "the import blocker's ImportError text, for people; it attaches graded_forbidden",
    ("sandbox/view_stubs.py", "is forbidden in this assignment"):
        "the view's stubs raise this ImportError text; they attach graded_forbidden",
    ("sandbox/bwrap.py", "is forbidden in this assignment"):
        "the masks' ImportError text, written into the child's masked modules",
    ("harness/missing_names.py", "is missing from your package"):
        "a placeholder's NotImplementedError text, for people; it attaches graded_missing",
}


def markers_outside_renderer(engine: Path) -> set[tuple[str, str]]:
    """(file relative to `engine`, marker) for every marker in an engine file other than the
    renderer."""
    found = set()
    for path in sorted(engine.rglob("*.py")):
        rel = path.relative_to(engine).as_posix()
        if rel == RENDERER:
            continue
        text = path.read_text(encoding="utf-8")
        found |= {(rel, m) for m in MARKERS if m in text}
    return found


def test_only_the_renderer_writes_the_sentences():
    stray = markers_outside_renderer(ENGINE) - ALLOWED.keys()
    assert not stray, f"display text outside {RENDERER} (render a Reason instead): {sorted(stray)}"


def test_the_allow_list_is_exact():
    """Every allowed entry still occurs: an entry whose reason is gone is removed."""
    assert markers_outside_renderer(ENGINE) == set(ALLOWED)


def test_the_scan_finds_a_sentence_in_a_copy(tmp_path):
    copy = tmp_path / "autograder"
    shutil.copytree(ENGINE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    judge = copy / "grading" / "judge.py"
    judge.write_text(judge.read_text() + '\nMARK = "is forbidden in this assignment"\n')
    assert markers_outside_renderer(copy) - ALLOWED.keys() == {
        ("grading/judge.py", "is forbidden in this assignment")}


def test_the_renderer_writes_every_marker():
    """The markers are the renderer's own sentences (the child's ImportError text aside)."""
    text = (ENGINE / RENDERER).read_text(encoding="utf-8")
    assert [m for m in MARKERS if m not in text] == ["is forbidden in this assignment"]


def test_every_cause_has_its_text_and_round_trips():
    for cause in Cause:
        why = Reason(cause, module="torch", file="a.py", line=3, function="f", limit=2.0,
                  count=4, label="hidden", last="boom", detail="why", source="import torch",
                  rule="torch", verb="imports")
        assert Reason.from_json(why.to_json()) == why
        assert sentence(why), cause


def test_a_forbidden_import_is_told_by_its_cause_not_its_text():
    """The judge words a forbidden import from the record's cause; the same text without the
    cause is an ordinary error (nothing reads the sentence back)."""
    where = {"function": "f", "file": "pkg/a.py", "line": 3, "student": True}
    text = "ImportError: module 'torch' is forbidden in this assignment"
    with_cause = Record("t", "ended", "failed", text, "ImportError", where=where,
                            cause=Reason(Cause.FORBIDDEN_IMPORT, module="torch"))
    assert raised_message(with_cause) == ("pkg/a.py, line 3 imports 'torch', which this "
                                          "assignment forbids (it would do the work for you)")
    without = Record("t", "ended", "failed", text, "ImportError", where=where)
    assert raised_message(without) == f"{text}, raised in f() (pkg/a.py:3)"


def test_a_crash_is_recorded_with_its_exit_status(toy, tmp_path, monkeypatch):
    """A test that kills its process: the record's cause says CRASHED with the child's exit
    status beside its last stderr line (a cold child's: a warm child is the zygote's, whose
    status the grader does not see); the student's message is the renderer's sentence."""
    monkeypatch.setenv("TRAINING_SYSTEMS_WARM", "0")
    source = (toy.solutions / "toy" / "__init__.py").read_text()
    (tmp_path / "sub" / "toy").mkdir(parents=True)
    (tmp_path / "sub" / "toy" / "__init__.py").write_text(
        source.replace("return a + b", "import os; os.abort()"))
    grade = grade_root(toy, tmp_path / "sub", ("public",))
    why = grade.run.records["test_add"].cause
    assert why.cause is Cause.CRASHED and why.status not in (None, 0), why
    test = next(t for t in grade.tests if t.id == "test_add")
    assert test.message == sentence(why) and test.message.startswith(
        "the test process died during this test")


def _collect_error(file: str, exception: str) -> Reason:
    return Reason(Cause.COLLECT_ERROR, file=file, detail=f"Traceback ... {file} ...\nE   {exception}",
               last=exception)


def test_problems_are_deduplicated_by_their_cause_not_their_text():
    """The same exception in several test files is one problem that counts the others; the
    same cause from two runs is one; alike text of different causes stays apart."""
    same = [_collect_error("test_a.py", "ImportError: no x"),
            _collect_error("test_b.py", "ImportError: no x"),
            _collect_error("test_c.py", "ImportError: no y")]
    timeout = Reason(Cause.RUN_TIMEOUT, limit=60.0)
    kept = dedupe([*same, timeout, timeout, Reason(Cause.REFUSED, detail="no x"),
                   Reason(Cause.START_FAILED, detail="no x")])
    assert [(w.cause, w.file, w.count) for w in kept] == [
        (Cause.COLLECT_ERROR, "test_a.py", 1), (Cause.COLLECT_ERROR, "test_c.py", None),
        (Cause.RUN_TIMEOUT, None, None), (Cause.REFUSED, None, None),
        (Cause.START_FAILED, None, None)]
    assert sentence(kept[0]) == sentence(same[0]) + "\n(the same error in 1 more test file(s))"


def test_every_test_of_a_refused_package_carries_intake_s_cause(toy):
    """all_failed takes its reason from the problem's data: each test's not-run reason is the
    Why itself, its message the first line of the Why's text."""
    why = Reason(Cause.SYNTAX_ERROR, file="toy/__init__.py", line=1, detail="invalid syntax",
              source="def add(:", column=8)
    grade = all_failed(toy, ("public", "hidden"), [why], [], 0.0)
    assert sentence(why) == ("SyntaxError in toy/__init__.py, line 1: invalid syntax\n"
                           "    def add(:\n            ^")
    assert grade.tests and all(t.not_run == why and t.message == "not run: " + first_line(why)
                               for t in grade.tests)


def test_where_the_package_failed_to_import_is_read_from_the_exception(toy, tmp_path):
    """The harness locates an import failure from the exception's own traceback: a message
    dressed as pytest's traceback text does not move it (text parsing would report
    toy/fake.py:77)."""
    decoy = "boom\nE   ../impl/toy/fake.py:77: in <module>\n    import os"
    grade = grade_root(toy, submission(tmp_path, f"x = 1\nraise RuntimeError({decoy!r})\n"),
                       ("public",))
    why, = grade.problems
    assert (why.cause, why.file, why.line, why.source) == (
        Cause.PACKAGE_IMPORT, "toy/__init__.py", 2, f"raise RuntimeError({decoy!r})")
    assert why.detail == "RuntimeError: boom E   ../impl/toy/fake.py:77: in <module>     import os"
