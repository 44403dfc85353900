"""grades.csv (what an LMS imports: totals per assignment and per task before the per-test
columns) and a Canvas-style gradebook export, from the students' results.json."""

from __future__ import annotations

import ast
import csv
import io
import re
from functools import lru_cache
from pathlib import Path

from .assignments import Assignment
from .atomic import write_atomic

TASK_DOCSTRING = re.compile(r"^\s*(Task\s+\d+\s*:\s*[^\n]+)", re.IGNORECASE)


@lru_cache(maxsize=256)
def _file_task(path: Path) -> str:
    try:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    except (OSError, SyntaxError, ValueError):
        doc = ""
    match = TASK_DOCSTRING.match(doc)
    return match.group(1).strip() if match else path.stem.removeprefix("test_")


def task_of(assignment: Assignment, test: dict) -> str:
    """The task a results.json test belongs to: the manifest's `task` once tests carry one,
    else the test file's module docstring "Task N: title", else the file stem. (The one place to
    switch when the manifest grows a task field.)"""
    if test.get("task"):
        return str(test["task"])
    parts = str(test.get("name", "")).split(" · ")
    if len(parts) == 3:  # "assignment · Task N: title · test id" (report.results_json)
        return parts[1]
    stem = test.get("tags", [None, "unknown"])[-1]
    for visibility in ("public", "hidden"):
        path = assignment.tests_dir / visibility / f"{stem}.py"
        if path.exists():
            return _file_task(path)
    return str(stem).removeprefix("test_")


def columns(results: dict[str, dict], assignments: list[Assignment]) -> list[tuple]:
    """(kind, assignment, label, max) for each column after student/score/max/message:
    per-assignment totals, per-task totals, then per-test scores."""
    by_name = {a.name: a for a in assignments}
    tests: dict[str, tuple] = {}
    for r in results.values():
        for t in r["tests"]:
            a = by_name.get(t["name"].split(" · ")[0].partition(":")[0])
            if a is not None:
                tests.setdefault(t["name"], (a, task_of(a, t), t["max_score"]))
    cols: list[tuple] = [("assignment", a, a.name, sum(m for x, _, m in tests.values() if x is a))
                         for a in assignments]
    tasks: dict[tuple, float] = {}
    for a, task, m in tests.values():
        tasks[(a.name, task)] = tasks.get((a.name, task), 0) + m
    cols += [("task", by_name[a], f"{a}: {task}", m) for (a, task), m in sorted(tasks.items())]
    cols += [("test", a, name, m) for name, (a, _, m) in sorted(tests.items())]
    return cols


def student_row(r: dict | None, cols: list[tuple]) -> list:
    if r is None:
        return ["" for _ in cols]
    scores = {t["name"]: t["score"] for t in r["tests"]}
    row = []
    for kind, a, label, _ in cols:
        mine = [t for t in r["tests"] if t["name"].split(" · ")[0].partition(":")[0] == a.name]
        if kind == "assignment":
            row.append(sum(t["score"] for t in mine))
        elif kind == "task":
            row.append(sum(t["score"] for t in mine
                           if f"{a.name}: {task_of(a, t)}" == label))
        else:
            row.append(scores.get(label, ""))
    return row


def message(r: dict | None, error: str | None) -> str:
    from .bulk import rejection

    if error:
        return error
    return "; ".join(rejection(r)) if r else ""


def write_gradebook(results: dict[str, dict], errors: dict[str, str],
                    assignments: list[Assignment], path: Path) -> None:
    """One row per student (graded, rejected or errored: nobody disappears), atomically."""
    cols = columns(results, assignments)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["student", "score", "max_score", "message", *[c[2] for c in cols]])
    total = sum(c[3] for c in cols if c[0] == "assignment")
    for student in sorted({*results, *errors}):
        r = results.get(student)
        writer.writerow([student, r["score"] if r else 0, r["max_score"] if r else total,
                         message(r, errors.get(student)), *student_row(r, cols)])
    write_atomic(path, buf.getvalue().encode())


def write_canvas(results: dict[str, dict], errors: dict[str, str],
                 assignments: list[Assignment], path: Path) -> None:
    """Canvas's gradebook import layout: Student, ID, SIS User ID, SIS Login ID, Section, one
    column per assignment, and a "Points Possible" row first. The student folder's name goes in
    SIS Login ID (Canvas matches on it); ID is left empty for Canvas to fill."""
    cols = [c for c in columns(results, assignments) if c[0] == "assignment"]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                     *[f"{a.title} ({a.name})" for _, a, _, _ in cols]])
    writer.writerow(["    Points Possible", "", "", "", "", *[m for *_, m in cols]])
    for student in sorted({*results, *errors}):
        row = student_row(results.get(student), cols)
        writer.writerow([student, "", "", student, "", *[x if x != "" else 0 for x in row]])
    write_atomic(path, buf.getvalue().encode())
