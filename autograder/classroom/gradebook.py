"""grades.csv (what an LMS imports: totals per assignment and per task before the per-test
columns) and a Canvas-style gradebook export, from the students' results.json.

Headers are short and never truncated (`toy: Task 1`, `toy · test_add`); the class report's
HTML page shows the full task titles on hover. Every cell is valid UTF-8 on one line (names
escaped by bulk_intake.visible), and a text cell that a spreadsheet would run as a formula
(`=`, `+`, `-`, `@` first) is prefixed with `'`.
"""

from __future__ import annotations

import ast
import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from ..assignments import Assignment
from ..atomic import write_atomic
from ..grading.tasks import TASK_LINE, TITLE_END, natural_key
from .submissions import visible

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
TASK_LABEL = re.compile(r"^Task\s+(\d+)\b")


@dataclass(frozen=True)
class TestKey:
    """Where a results.json test belongs: assignment, task (short label "Task N" and the
    label in the test's name), test id and visibility."""

    assignment: str
    task: str
    task_label: str
    test_id: str
    visibility: str


def test_key(t: dict) -> TestKey:
    """The key of a results.json test ("assignment · Task N: title · id", tags [a, file,
    "task N"])."""
    parts = str(t.get("name", "")).split(" · ")
    assignment = parts[0].partition(":")[0]
    label = parts[1] if len(parts) == 3 else ""
    number = next((tag.split()[1] for tag in t.get("tags", [])
                   if isinstance(tag, str) and re.fullmatch(r"task \d+", tag)), None)
    if number is None and (m := TASK_LABEL.match(label)):
        number = m.group(1)
    task = f"Task {number}" if number else (label or str((t.get("tags") or ["", "?"])[-1]))
    vis = "hidden" if t.get("visibility") == "after_published" else "public"
    return TestKey(assignment, task, label or task, parts[-1], vis)


def task_of(assignment: Assignment, test: dict) -> str:
    """The short task label ("Task N") of a results.json test."""
    return test_key(test).task


def full_titles(assignment: Assignment) -> dict[str, str]:
    """{"Task N": "title"} from the test files' docstrings (public first): tasks.title_of's
    short title without its length cut, i.e. never ending in "…"."""
    titles: dict[str, str] = {}
    for vis in ("public", "hidden"):
        for path in assignment.test_files(vis):
            try:
                doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
            except (OSError, SyntaxError, ValueError):
                continue
            match = TASK_LINE.match(doc.strip().splitlines()[0] if doc.strip() else "")
            if match:
                title = TITLE_END.split(match.group(2).strip(), maxsplit=1)[0].strip().rstrip(".")
                titles.setdefault(f"Task {match.group(1)}", title)
    return titles


def mine(r: dict, a: Assignment) -> list[dict]:
    """The tests of `r` that belong to assignment `a`."""
    return [t for t in r.get("tests", []) if test_key(t).assignment == a.name]


def columns(results: dict[str, dict], assignments: list[Assignment]) -> list[tuple]:
    """(kind, assignment, label, max, match) for each column after student/score/max/message:
    per-assignment totals, per-task totals, then per-test scores (`match(TestKey) -> bool`)."""
    by_name = {a.name: a for a in assignments}
    tests: dict[tuple, tuple] = {}
    for r in results.values():
        for t in r.get("tests", []):
            k = test_key(t)
            if k.assignment in by_name:
                tests.setdefault((k.assignment, k.test_id, k.visibility), (k, t["max_score"]))
    cols: list[tuple] = [("assignment", a, a.name, sum(m for k, m in tests.values()
                                                       if k.assignment == a.name),
                          lambda k, a=a: k.assignment == a.name) for a in assignments]
    tasks: dict[tuple, float] = {}
    for k, m in tests.values():
        tasks[(k.assignment, k.task)] = tasks.get((k.assignment, k.task), 0) + m
    order = {a.name: i for i, a in enumerate(assignments)}
    for (a, task), m in sorted(tasks.items(), key=lambda kv: (order[kv[0][0]], natural_key(kv[0][1]))):
        cols.append(("task", by_name[a], f"{a}: {task}", m,
                     lambda k, a=a, task=task: k.assignment == a and k.task == task))
    ids = [(k.assignment, k.test_id) for k, _ in tests.values()]
    for (a, test_id, vis), (k, m) in sorted(tests.items(), key=lambda kv: (
            order[kv[0][0]], natural_key(kv[1][0].task), natural_key(kv[0][1]))):
        label = f"{a} · {test_id}" + (f" ({vis})" if ids.count((a, test_id)) > 1 else "")
        cols.append(("test", by_name[a], label, m, lambda k, key=(a, test_id, vis): (
            k.assignment, k.test_id, k.visibility) == key))
    return cols


def student_row(r: dict | None, cols: list[tuple]) -> list:
    if r is None:
        return ["" for _ in cols]
    keyed = [(test_key(t), t["score"]) for t in r.get("tests", [])]
    row = []
    for kind, _, _, _, match in cols:
        picked = [score for k, score in keyed if match(k)]
        row.append(sum(picked) if kind != "test" or picked else "")
    return row


def csv_cell(value: object) -> object:
    """A cell as an LMS or spreadsheet should read it: text visible and on one line, never
    a formula; numbers unchanged."""
    if not isinstance(value, str):
        return value
    text = visible(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def _write(rows: list[list], path: Path) -> None:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerows([[csv_cell(c) for c in row] for row in rows])
    write_atomic(path, buf.getvalue().encode("utf-8"))


def write_gradebook(results: dict[str, dict], messages: dict[str, str],
                    assignments: list[Assignment], path: Path) -> None:
    """One row per student (graded, rejected or errored: nobody disappears), atomically;
    `messages` holds each student's message (an error, a rejection, a note)."""
    cols = columns(results, assignments)
    total = sum(c[3] for c in cols if c[0] == "assignment")
    rows = [["student", "score", "max_score", "message", *[c[2] for c in cols]]]
    for student in sorted({*results, *messages}):
        r = results.get(student)
        rows.append([student, r["score"] if r else 0, r["max_score"] if r else total,
                     messages.get(student, ""), *student_row(r, cols)])
    _write(rows, path)


def write_canvas(results: dict[str, dict], messages: dict[str, str],
                 assignments: list[Assignment], path: Path) -> None:
    """Canvas's gradebook import layout: Student, ID, SIS User ID, SIS Login ID, Section, one
    column per assignment, and a "Points Possible" row first. The student folder's name goes in
    SIS Login ID (Canvas matches on it); ID is left empty for Canvas to fill."""
    cols = [c for c in columns(results, assignments) if c[0] == "assignment"]
    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
             *[f"{a.title} ({a.name})" for _, a, *_ in cols]],
            ["    Points Possible", "", "", "", "", *[c[3] for c in cols]]]
    for student in sorted({*results, *messages}):
        row = student_row(results.get(student), cols)
        rows.append([student, "", "", student, "", *[x if x != "" else 0 for x in row]])
    _write(rows, path)


def rejection(results: dict) -> list[str]:
    """Why nothing of the submission ran (every test "not run: ..."), else []."""
    tests = results.get("tests", [])
    if tests and all(t["output"].startswith("not run: ") for t in tests):
        return sorted({t["output"].removeprefix("not run: ").splitlines()[0] for t in tests})
    return [] if tests else ([results.get("output", "").strip() or "nothing graded"])
