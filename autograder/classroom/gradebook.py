"""grades.csv (what an LMS imports: totals per assignment and per task before the per-test
columns) and a Canvas-style gradebook export, from the students' results.json (read once into
results.GradedRun: no display string is parsed here).

Headers are short and never truncated (`toy: Task 1`, `toy · test_add`); the class report's
HTML page shows the full task titles on hover. Every cell is valid UTF-8 on one line (names
escaped by safe_text.one_line), and a text cell that a spreadsheet would run as a formula
(`=`, `+`, `-`, `@` first) is prefixed with `'`.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ..assignments import VISIBILITIES, Assignment
from ..atomic import write_atomic
from ..grading.results import GradedRun, GradedTest
from ..grading.safe_text import one_line
from ..grading.tasks import natural_key, whole_task_titles

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def task_column_titles(assignment: Assignment) -> dict[str, str]:
    """{"Task N": "title"} from the test files' docstrings (public first): tasks.title_of's
    short title without its length cut, i.e. never ending in "…"."""
    files = [f for v in VISIBILITIES for f in assignment.test_files(v)]
    return {f"Task {n}": title for n, title in whole_task_titles(files).items()}


def columns(runs: dict[str, GradedRun], assignments: list[Assignment]) -> list[tuple]:
    """(kind, assignment, label, max, match) for each column after student/score/max/message:
    per-assignment totals, per-task totals, then per-test scores (`match(GradedTest) -> bool`)."""
    by_name = {a.name: a for a in assignments}
    tests: dict[tuple, GradedTest] = {}
    for r in runs.values():
        for t in r.tests:
            if t.assignment in by_name:
                tests.setdefault((t.assignment, t.test_id, t.visibility), t)
    cols: list[tuple] = [("assignment", a, a.name, sum(t.max_score for t in tests.values()
                                                       if t.assignment == a.name),
                          lambda t, a=a: t.assignment == a.name) for a in assignments]
    tasks: dict[tuple, float] = {}
    for t in tests.values():
        key = (t.assignment, t.task_label)
        tasks[key] = tasks.get(key, 0) + t.max_score
    order = {a.name: i for i, a in enumerate(assignments)}
    for (a, task), m in sorted(tasks.items(), key=lambda kv: (order[kv[0][0]], natural_key(kv[0][1]))):
        cols.append(("task", by_name[a], f"{a}: {task}", m,
                     lambda t, a=a, task=task: t.assignment == a and t.task_label == task))
    ids = [(t.assignment, t.test_id) for t in tests.values()]
    for (a, test_id, vis), t in sorted(tests.items(), key=lambda kv: (
            order[kv[0][0]], natural_key(kv[1].task_label), natural_key(kv[0][1]))):
        label = f"{a} · {test_id}" + (f" ({vis})" if ids.count((a, test_id)) > 1 else "")
        cols.append(("test", by_name[a], label, t.max_score, lambda t, key=(a, test_id, vis): (
            t.assignment, t.test_id, t.visibility) == key))
    return cols


def student_row(r: GradedRun | None, cols: list[tuple]) -> list:
    if r is None:
        return ["" for _ in cols]
    row = []
    for kind, _, _, _, match in cols:
        picked = [t.score for t in r.tests if match(t)]
        row.append(sum(picked) if kind != "test" or picked else "")
    return row


def csv_cell(value: object) -> object:
    """A cell as an LMS or spreadsheet should read it: text visible and on one line, never
    a formula; numbers unchanged."""
    if not isinstance(value, str):
        return value
    text = one_line(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def _write(rows: list[list], path: Path) -> None:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerows([[csv_cell(c) for c in row] for row in rows])
    write_atomic(path, buf.getvalue().encode("utf-8"))


NOT_GRADED = "not graded yet: the run was stopped (run the same command to resume)"


def write_gradebook(results: dict[str, GradedRun], messages: dict[str, str],
                    assignments: list[Assignment], path: Path,
                    pending: list[str] = ()) -> None:
    """One row per student (graded, rejected or errored: nobody disappears), atomically;
    `messages` holds each student's message (an error, a rejection, a note); a `pending`
    student (a stopped run did not reach them) has empty scores and NOT_GRADED."""
    cols = columns(results, assignments)
    total = sum(c[3] for c in cols if c[0] == "assignment")
    rows = [["student", "score", "max_score", "message", *[c[2] for c in cols]]]
    for student in sorted({*results, *messages, *pending}):
        r = results.get(student)
        if r is None and student not in messages:
            rows.append([student, "", total, NOT_GRADED, *["" for _ in cols]])
            continue
        rows.append([student, r.score if r else 0, r.max_score if r else total,
                     messages.get(student, ""), *student_row(r, cols)])
    _write(rows, path)


def write_canvas(results: dict[str, GradedRun], messages: dict[str, str],
                 assignments: list[Assignment], path: Path, pending: list[str] = ()) -> None:
    """Canvas's gradebook import layout: Student, ID, SIS User ID, SIS Login ID, Section,
    Notes (the student's message: why they got nothing, a note; Canvas imports it into the
    gradebook's Notes column), one column per assignment, and a "Points Possible" row first.
    The student folder's name goes in SIS Login ID (Canvas matches on it); ID is left empty for
    Canvas to fill. A `pending` student's scores are empty (Canvas leaves an empty cell's grade
    as it was), never 0."""
    cols = [c for c in columns(results, assignments) if c[0] == "assignment"]
    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Notes",
             *[f"{a.title} ({a.name})" for _, a, *_ in cols]],
            ["    Points Possible", "", "", "", "", "", *[c[3] for c in cols]]]
    for student in sorted({*results, *messages, *pending}):
        if student not in results and student not in messages:
            rows.append([student, "", "", student, "", NOT_GRADED, *["" for _ in cols]])
            continue
        row = student_row(results.get(student), cols)
        rows.append([student, "", "", student, "", messages.get(student, ""),
                     *[x if x != "" else 0 for x in row]])
    _write(rows, path)
