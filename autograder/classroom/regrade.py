"""`bulk ... --compare PREVIOUS_OUT`: a regrade preview. After a change to tests, goldens or
hints, the new run's results are compared with a previous run's folder (read, never written):
every student whose total, maximum or any test's score differs is listed with the change and
the tests that moved, in the terminal and in NEW/compare.csv and NEW/compare.md.

A test is matched by (assignment, test id, visibility), so a retitled task does not count as a
change; a test present on one side only counts as a change of its score from or to nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..assignments import Visibility
from ..atomic import write_atomic
from ..grading.results import GradedRun, ResultsError, read_results
from ..grading.safe_text import one_line
from .gradebook import csv_cell
from .submissions import read_regular

MAX_RESULTS = 64 * 2**20  # bytes of one previous results.json read


@dataclass
class Change:
    """One student's change: totals before/after (None: not in that run) and the tests that
    moved as (label, before, after)."""

    student: str
    before: float | None
    after: float | None
    max_before: float | None
    max_after: float | None
    tests: list[tuple[str, float | None, float | None]]

    @property
    def delta(self) -> float:
        return (self.after or 0) - (self.before or 0)


def previous_results(folder: Path) -> dict[str, GradedRun]:
    """{student: results.json, read once} of a previous bulk run's OUT folder (its students'
    subfolders); unreadable or malformed files (results.ResultsError) are skipped. A missing
    folder is a BulkError for the caller."""
    found = {}
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
            continue
        data = read_regular(os.path.join(entry.path, "results.json"), MAX_RESULTS)
        if data is None:
            continue
        try:
            found[one_line(entry.name)] = read_results(data)
        except ResultsError:
            continue
    return found


def _scores(results: GradedRun | None) -> dict[tuple, tuple[str, float]]:
    found = {}
    for t in results.tests if results is not None else ():
        found[(t.assignment, t.test_id, t.visibility)] = (
            f"{t.assignment} · {t.test_id}" + (" (hidden)" if t.visibility == Visibility.HIDDEN else ""),
            t.score)
    return found


def compare(before: dict[str, GradedRun], after: dict[str, GradedRun]) -> list[Change]:
    """The students whose grade differs between the two runs, largest change first."""
    changes = []
    for student in sorted({*before, *after}):
        old, new = before.get(student), after.get(student)
        so, sn = _scores(old), _scores(new)
        moved = [(label, so.get(k, (label, None))[1], sn.get(k, (label, None))[1])
                 for k, (label, _) in sorted({**so, **sn}.items())
                 if so.get(k, (None, None))[1] != sn.get(k, (None, None))[1]]
        totals = [(r.score, r.max_score) if r else (None, None) for r in (old, new)]
        if moved or totals[0] != totals[1]:
            changes.append(Change(student, totals[0][0], totals[1][0], totals[0][1],
                                  totals[1][1], moved))
    return sorted(changes, key=lambda c: (-abs(c.delta), c.student))


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:g}"


def describe(tests: list[tuple[str, float | None, float | None]]) -> str:
    return "; ".join(f"{label}: {_num(b)} -> {_num(a)}" for label, b, a in tests)


def rows(changes: list[Change]) -> list[list[str]]:
    """student, before, after, change, tests: the table of the terminal, csv and md."""
    return [[c.student, f"{_num(c.before)} / {_num(c.max_before)}",
             f"{_num(c.after)} / {_num(c.max_after)}", f"{c.delta:+g}", describe(c.tests)]
            for c in changes]


HEADERS = ["student", "before", "after", "change", "tests that changed"]


def write_comparison(changes: list[Change], previous: Path, out: Path) -> None:
    """NEW/compare.csv (the change as a number) and NEW/compare.md, atomically."""
    import csv
    import io

    from .class_report import md_escape

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    numeric = [[*row[:3], c.delta, row[4]] for row, c in zip(rows(changes), changes)]
    writer.writerows([[csv_cell(c) for c in row] for row in [HEADERS, *numeric]])
    write_atomic(out / "compare.csv", buf.getvalue().encode("utf-8"))
    lines = ["# Regrade preview", "",
             f"Compared with {md_escape(previous)}: {len(changes)} student"
             f"{'s' if len(changes) != 1 else ''} would change." if changes else
             f"Compared with {md_escape(previous)}: no change (every student's grade is the "
             f"same).", ""]
    if changes:
        lines += ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
        lines += ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in rows(changes)]
    write_atomic(out / "compare.md", ("\n".join(lines) + "\n").encode("utf-8"))


def terminal_table(changes: list[Change], previous: Path):
    """A rich Table of the changes (escaped: names are never markup); with no change, one line
    that says so (not an empty table)."""
    from rich.table import Table
    from rich.text import Text

    if not changes:
        return Text(f"regrade preview against {one_line(str(previous))}: no change (every "
                    f"student's grade is the same)")
    table = Table(title=f"regrade preview against {one_line(str(previous))}: {len(changes)} "
                        f"student{'s' if len(changes) != 1 else ''} would change")
    for h in HEADERS:
        table.add_column(h, overflow="fold")
    for row in rows(changes):
        table.add_row(*[Text(one_line(c)) for c in row])
    return table
