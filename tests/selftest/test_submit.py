"""`submit`: the zip it builds is one `grade` accepts (full marks for the reference), holds only
what the grader stages, and is refused, with the grader's own reason, when intake would refuse
the package."""

from __future__ import annotations

import shutil
import zipfile

from helpers import SOLUTION, grade_results, submission

from autograder import cli
from autograder.sandbox import SandboxPolicy


def test_grade_accepts_the_zip_submit_builds(toy_course, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(toy_course))
    work = tmp_path / "work"
    shutil.copytree(toy_course / "solutions", work)
    (work / "toy" / "notes.txt").write_text("my notes\n")  # not graded: left out, and said so
    out = tmp_path / "toy.zip"
    assert cli.main(["submit", "toy", "--impl", str(work), "--out", str(out)]) == 0
    said = capsys.readouterr()
    assert f"wrote {out}" in said.out and "notes.txt" in said.err
    with zipfile.ZipFile(out) as zf:
        names = zf.namelist()
    assert "toy/__init__.py" in names and not any(n.endswith(".txt") for n in names)
    results = grade_results(out, ["toy"], SandboxPolicy.create("none"))
    assert results.max_score > 0 and results.score == results.max_score, results.problems


def test_submit_refuses_what_intake_refuses(toy_course, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(toy_course))
    broken = submission(tmp_path, SOLUTION + "\ndef oops(:\n")
    out = tmp_path / "toy.zip"
    assert cli.main(["submit", "toy", "--impl", str(broken), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "SyntaxError in toy/__init__.py" in err and "no zip written" in err
    assert not out.exists() and "removed" not in err


def test_a_refused_submit_removes_the_earlier_zip(toy_course, tmp_path, monkeypatch, capsys):
    """A zip from an earlier submit must not stay ready to upload once the code no longer
    passes intake: the refused submit deletes it and says so."""
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(toy_course))
    work = submission(tmp_path, SOLUTION)
    out = tmp_path / "out" / "toy-submission.zip"
    assert cli.main(["submit", "toy", "--impl", str(work), "--out", str(out)]) == 0
    assert out.is_file()
    (work / "toy" / "__init__.py").write_text(SOLUTION + "\nimport statistics\n")  # forbidden
    capsys.readouterr()
    assert cli.main(["submit", "toy", "--impl", str(work), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "statistics" in err and f"removed the earlier {out}" in err and "no zip written" in err
    assert not out.exists()
