"""Errors where the instructor looks: a student who got 0 because of their package (a syntax
error, an import that crashes, a helper module missing, no package) has the one-line reason in
grades.csv's message, canvas.csv's Notes, the class report's "rejected or errored" list
(Markdown and HTML), and their own page beside the report, an HTML page (not raw JSON) that
the report's student table links to. The student table comes first in the report, and without
a terminal bulk prints one progress line per student and the report's path, not the report.

The reason travels as a machine field (results.json's extra_data.autograder.package_errors,
read by grading/results.read_results); nothing here reads display text for its meaning.

Mutants that fail these tests: report.results_json without package_errors (the import crash's
message is empty); GradedRun.rejection ignoring them (missing from the rejected list);
write_canvas without the Notes column; the student table last; bulk printing the report
into a pipe; the student table linking to results.json.
"""

from __future__ import annotations

import csv
import html
import os
import re
import shutil
import subprocess
import sys

import pytest
from helpers import SOLUTION

REASONS = {  # student -> (their package's toy/__init__.py or None: no package, the reason)
    "good": (SOLUTION, None),
    "syntax": (SOLUTION + "\ndef broken(:\n", "SyntaxError in toy/__init__.py, line"),
    "crash": ("raise RuntimeError('boom at import')\n" + SOLUTION,
              "importing your package failed: RuntimeError: boom at import (toy/__init__.py:1)"),
    "helper": ("from .helper import x\n" + SOLUTION,
               "importing your package failed: ModuleNotFoundError: No module named 'toy.helper'"),
    "nopkg": (None, "no 'toy' package found"),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory, toy_course):
    """The class graded once by `bulk` with its output piped: (OUT, what it printed)."""
    root = tmp_path_factory.mktemp("errors")
    subs, out = root / "subs", root / "out"
    for student, (source, _) in REASONS.items():
        pkg = subs / student / ("toy" if source is not None else "mytoy")
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text(source if source is not None else SOLUTION)
    done = subprocess.run([sys.executable, "-m", "autograder", "bulk", str(subs), "--assignment",
                           "toy", "--jobs", "2", "--out", str(out)], capture_output=True,
                          text=True, timeout=600,
                          env={**os.environ, "TRAINING_SYSTEMS_ROOT": str(toy_course)})
    assert done.returncode == 0, done.stderr
    return out, done.stdout


def test_the_reason_is_in_grades_csv_and_canvas_notes(graded):
    out, _ = graded
    grades = {r["student"]: r for r in csv.DictReader(open(out / "grades.csv"))}
    canvas = {r["SIS Login ID"]: r for r in csv.DictReader(open(out / "canvas.csv"))
              if r["SIS Login ID"]}
    for student, (_, reason) in REASONS.items():
        if reason is None:
            assert grades[student]["message"] == "" and float(grades[student]["score"]) == 7
            continue
        assert float(grades[student]["score"]) == 0
        for said in (grades[student]["message"], canvas[student]["Notes"]):
            assert said.startswith(reason) and "\n" not in said, (student, said)


def test_the_reason_is_in_the_reports_rejected_list(graded):
    out, _ = graded
    md = (out / "class_report.md").read_text()
    listed = re.search(r"## Rejected or errored submissions\n\n(.*?)\n\n", md, re.S).group(1)
    page = (out / "class_report.html").read_text()
    section = re.search(r"<h2>Rejected or errored submissions</h2>(.*?)</section>", page,
                        re.S).group(1)
    assert len(listed.splitlines()) == len(REASONS) - 1
    for student, (_, reason) in REASONS.items():
        if reason is None:
            assert f"- {student}:" not in listed
            continue
        assert f"- {student}: {reason.replace('_', chr(92) + '_')}" in listed, listed
        assert f"<li>{student}: {reason}" in html.unescape(section), section


def test_the_student_table_comes_first_and_links_each_page(graded):
    out, _ = graded
    md = (out / "class_report.md").read_text()
    headings = re.findall(r"^#+ (.*)$", md, re.M)
    assert headings[:2] == ["Class report", "Students"]
    page = (out / "class_report.html").read_text()
    assert page.index("<h2>Students</h2>") < page.index("<h2>toy: scores")
    for student in REASONS:
        assert f'<a href="{student}/report.html">{student}</a>' in page


def test_each_student_has_a_page_with_the_reason_and_the_messages(graded):
    out, _ = graded
    for student, (_, reason) in REASONS.items():
        text = (out / student / "report.html").read_text()
        assert text.startswith("<!DOCTYPE html>") and "default-src 'none'" in text
        assert f"<h1>{student}: " in text
        assert "<td>test_add</td>" in text and "<td>Task 2</td>" in text  # every test, a row
        shown = html.unescape(text)
        if reason is None:
            assert "scored nothing" not in shown and "7 / 7" in shown
        else:
            assert "Why this submission scored nothing" in shown and reason in shown
    chromium = shutil.which("chromium")
    if chromium is None:
        return
    dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                          "--disable-background-networking", "--no-first-run",
                          f"--user-data-dir={out / '.profile'}", "--dump-dom",
                          (out / "crash" / "report.html").as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    assert "<h1>crash: 0 / 7</h1>" in dom and "boom at import" in dom  # a page, not JSON


def test_without_a_terminal_a_line_per_student_then_the_reports_path(graded):
    out, printed = graded
    lines = printed.strip().splitlines()
    progress = [ln for ln in lines if re.match(r"\[\d+/5\] ", ln)]
    assert sorted(int(re.match(r"\[(\d+)/5\]", ln).group(1)) for ln in progress) == [1, 2, 3, 4, 5]
    for student, (_, reason) in REASONS.items():
        (line,) = [ln for ln in progress if re.match(rf"\[\d/5\] {student}: ", ln)]
        assert (reason or "7/7") in line
    assert lines[-1] == f"class report: {out / 'class_report.md'} and {out / 'class_report.html'}"
    assert "Rejected or errored" not in printed and "pass rate" not in printed  # not the report
    assert len(lines) <= len(REASONS) + 3


def test_a_results_json_without_the_field_still_reads(tmp_path):
    """results.json written before package_errors existed reads with none; a forged one
    with a wrong type is refused with one line."""
    from autograder.grading.results import ResultsError, read_results

    base = {"score": 0.0, "max_score": 0.0, "output": "", "tests": []}
    assert read_results(base).package_errors == {}
    forged = {**base, "extra_data": {"autograder": {"package_errors": ["toy"]}}}
    with pytest.raises(ResultsError, match="package_errors"):
        read_results(forged)
