"""`make demo`: the bundled examples graded in parallel (jobs really overlap; one example's crash
is that example's row), the four verdicts, and a one-screen summary table that lists every
assignment x example with a score; the full reports stay in OUT/<example>/."""

from __future__ import annotations

import io
import json
import re
import threading

from rich.console import Console

from autograder import cli
from autograder.assignments import discover
from autograder.authoring import demo
from autograder.authoring.examples import EXAMPLE_NAMES
from autograder.grading import judge as grading
from autograder.grading import pipeline
from autograder.sandbox import SandboxPolicy

CELL = re.compile(r"(\d+)/(\d+) +\d+\.\ds")


def _fake_run(name: str, passed: bool, hint: str | None = None) -> demo.ExampleRun:
    test = grading.TestResult  # (not imported by name: pytest would try to collect it)
    grades = [grading.AssignmentGrade(a, [test(a.name, "t1", "test_x.py", "public", 7.0, passed,
                                               hints=[hint] if hint else [])], wall_s=1.5)
              for a in discover()]
    return demo.ExampleRun(name, pipeline.Results(grades), wall_s=12.0)


def _text(table) -> str:
    buf = io.StringIO()
    Console(file=buf, width=80, color_system=None).print(table)
    return buf.getvalue()


def test_summary_table_lists_every_assignment_by_example_with_a_score():
    runs = [_fake_run(n, n == "complete", "zero_grad is missing" if n == "classic-bugs" else None)
            for n in EXAMPLE_NAMES]
    text = _text(demo.summary_table(runs))
    lines = text.splitlines()
    header = next(ln for ln in lines if ln.split()[:1] == ["assignment"])
    assert header.split()[1:] == list(EXAMPLE_NAMES)
    for a in discover():
        row = next((ln for ln in lines if ln.split()[:1] == [a.name]), None)
        assert row is not None, f"no row for {a.name}:\n{text}"
        scores = [(int(s), int(m)) for s, m in CELL.findall(row)]
        assert scores == [(7, 7), (0, 7), (0, 7), (0, 7)], row  # one cell per example, in order
    verdicts = next(ln for ln in lines if ln.split()[:1] == ["verdict"])
    assert verdicts.split()[1:] == ["full", "marks", "zero", "zero", "zero"]
    assert next(ln for ln in lines if ln.startswith(" hints")).split()[-4:] == ["0", "1", "0", "0"]
    assert len(lines) <= 24 and max(map(len, lines)) <= 80  # one screen, unwrapped


def test_examples_are_graded_jobs_at_a_time_and_a_crash_is_one_row(monkeypatch, tmp_path):
    both_running = threading.Barrier(2, timeout=20)  # breaks unless two jobs overlap

    def fake_grade_one(name, assignments, policy, out, taken=None):
        if name == "broken":
            raise RuntimeError("disk full\nsecond line")
        if name in ("complete", "classic-bugs"):
            both_running.wait()
        return _fake_run(name, name == "complete")

    monkeypatch.setattr(demo, "grade_one", fake_grade_one)
    runs = demo.grade_examples(tmp_path, 2, SandboxPolicy.create("none"))
    assert [r.name for r in runs] == list(EXAMPLE_NAMES)
    assert [demo.verdict(r) for r in runs] == ["full marks", "zero", "zero",
                                               "error: RuntimeError: disk full"]
    assert "—" in _text(demo.summary_table(runs)).splitlines()[-4]  # the crashed column's total


def test_demo_streams_a_line_per_example_off_a_terminal(monkeypatch, tmp_path):
    """Piped or written to a file, the demo says what it does as it goes (before: nothing for
    minutes, a spinner shown only on a terminal): the header, then one line per example as it
    finishes, before the table."""
    monkeypatch.setattr(demo, "grade_one", lambda name, assignments, policy, out, taken=None:
                        _fake_run(name, name == "complete"))
    buf = io.StringIO()
    console = Console(file=buf, width=100, color_system=None)
    assert not console.is_terminal
    demo.run_demo(tmp_path, 1, SandboxPolicy.create("none"), console)
    lines = buf.getvalue().splitlines()
    header = next(i for i, ln in enumerate(lines) if ln.startswith("grading "))
    assert lines[header].startswith(f"grading {len(EXAMPLE_NAMES)} example zips")
    done = [ln for ln in lines if ln.startswith("[")]
    assert len(done) == len(EXAMPLE_NAMES) and done[0].startswith(f"[1/{len(EXAMPLE_NAMES)}] ")
    assert any("complete.zip: full marks" in ln for ln in done)
    table = next(i for i, ln in enumerate(lines) if "demo: the bundled examples" in ln)
    assert header < lines.index(done[0]) and lines.index(done[-1]) < table


def test_demo_gives_the_four_verdicts_and_keeps_the_full_reports(tmp_path, capsys):
    """The real demo on one assignment (minigrad) of each example, two at a time."""
    code = cli.main(["demo", "--assignment", "minigrad", "--jobs", "2", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    lines = out.splitlines()
    row = next(ln for ln in lines if ln.split()[:1] == ["minigrad"])
    scores = [(float(s), float(m)) for s, m in CELL.findall(row)]
    assert len(scores) == 4 and all(m > 0 for _, m in scores), row
    (full, m1), (partial, _), (starter, _), (broken, _) = scores
    assert full == m1 and 0 < partial < m1 and starter == 0 and broken == 0, row
    verdict = next(ln for ln in lines if ln.split()[:1] == ["verdict"])
    assert verdict.split()[1:] == ["full", "marks", "lost", "points", "zero", "zero"], verdict
    assert int(next(ln for ln in lines if ln.startswith(" hints")).split()[3]) > 0  # classic-bugs
    assert lines[-1].startswith("graded in ") and f"{tmp_path}/<example>/report.txt" in lines[-1]
    for name, (score, _) in zip(EXAMPLE_NAMES, scores):
        results = json.loads((tmp_path / name / "results.json").read_text())
        assert results["score"] == score
        report = (tmp_path / name / "report.txt").read_text()
        assert f"minigrad: {score:g} / {m1:g}" in report, report[-500:]
    assert "Hint: " in (tmp_path / "classic-bugs" / "report.txt").read_text()
    assert "SyntaxError" in (tmp_path / "broken" / "report.txt").read_text()


def test_an_identical_package_is_graded_once_and_the_table_says_so(tmp_path, capsys):
    """broken.zip ships the untouched scaling starter, as starter.zip does: one grade serves
    both (the same results.json tests), its cell is marked, and a line under the table says
    which; the packages that differ (complete, classic-bugs) are graded on their own."""
    shared = demo.same_packages(EXAMPLE_NAMES, [a.name for a in discover()])
    assert shared == {"broken": {a: "starter" for a in
                                 ("bpe", "dedup", "scaling", "ddp", "repro", "fusion")}}
    graded = []
    real = pipeline.grade
    with __import__("pytest").MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "grade", lambda job: (
            graded.append((job.submission.name, job.assignments)), real(job))[1])
        assert cli.main(["demo", "--assignment", "scaling", "--jobs", "2", "--out",
                         str(tmp_path)]) == 0
    assert sorted(graded) == [("classic-bugs.zip", ("scaling",)), ("complete.zip", ("scaling",)),
                              ("starter.zip", ("scaling",))]  # broken.zip: not graded again
    out = capsys.readouterr().out
    row = next(ln for ln in out.splitlines() if ln.split()[:1] == ["scaling"])
    assert row.count("*") == 1 and row.rstrip().endswith("*"), row
    assert "* broken.zip's scaling: the same package as starter.zip's, graded once" in out
    tests = {n: json.loads((tmp_path / n / "results.json").read_text())["tests"]
             for n in ("starter", "broken")}
    assert tests["broken"] == tests["starter"] and tests["starter"]
