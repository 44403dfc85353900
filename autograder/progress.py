"""Where a student stands across the course: `check --all` (`make progress`) runs every
assignment's public tests on one implementation folder and prints one table, each row the
assignment's public score and its handout's time estimate (`Assignment.time_estimate`, read
from the handout's own **Time:** line). `last_edited` is how `check` without an assignment
picks one: the package the student saved last.

The checks go through `pipeline.grade` (a check job each), PARALLEL at once (a zygote the process already holds
serves them), the longest first by the reference's stored seconds.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .assignments import Assignment, AssignmentError, TimeEstimate, discover
from .backends import Placement
from .grading import pipeline
from .grading.cause_text import first_line
from .grading.job import GradeJob, JobMode
from .grading.safe_text import visible
from .grading.store import reference_seconds
from .sandbox import SandboxPolicy

PARALLEL = 2  # checks at once: the machine this course targets has 2 cores
MAX_PROBLEM = 200  # characters of an assignment's problem under the table
UNTOUCHED_S = 2.0  # packages whose newest files lie this close together: none edited yet
DEFAULT_IMPL = "starter/"  # how the table names the default implementation folder


@dataclass(frozen=True)
class Row:
    """One assignment's public standing: points, tests passing, the first problem (a package
    that is missing or does not import), the check's seconds."""

    assignment: Assignment
    score: float
    max_score: float
    passing: int
    tests: int
    problem: str
    seconds: float

    @property
    def full(self) -> bool:
        return self.max_score > 0 and self.score == self.max_score


def check_all(impl: Path | None, policy: SandboxPolicy, placement: Placement,
              assignments: list[Assignment] | None = None) -> list[Row]:
    """Every assignment's public tests on `impl` (default: each one's starter), PARALLEL at
    once; rows in teaching order."""
    chosen = assignments or discover()

    def one(assignment: Assignment) -> Row:
        started = time.monotonic()
        results = pipeline.grade(GradeJob(impl or assignment.starter, assignment.root, JobMode.CHECK,
                                          (assignment.name,), policy=policy,
                                          placement=placement))
        grade, = results.grades
        problem = next((line for p in grade.problems if (line := first_line(p))), "")
        return Row(assignment, grade.score, grade.max_score, sum(t.passed for t in grade.tests),
                   len(grade.tests), problem, time.monotonic() - started)

    longest_first = sorted(chosen, key=lambda a: -reference_seconds(a))
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        rows = dict(zip(map(id, longest_first), pool.map(one, longest_first)))
    return [rows[id(a)] for a in chosen]


def print_progress(rows: list[Row], console: Console, impl: str, seconds: float) -> None:
    """The progress table: one row per assignment, a total, and what to check next."""
    table = Table(title=visible(f"progress: public tests on {impl}"), title_justify="left")
    for name, justify in (("#", "right"), ("assignment", "left"), ("public points", "right"),
                          ("", "right"), ("tests passing", "right"), ("handout's time", "right"),
                          ("", "left")):
        table.add_column(name, justify=justify)
    for r in rows:
        pct = 100 * r.score / r.max_score if r.max_score else 0
        mark = "[green]✓[/]" if r.full else ("[red]see below[/]" if r.problem else "")
        table.add_row(str(r.assignment.number), escape(r.assignment.name),
                      f"{r.score:g} / {r.max_score:g}", f"{pct:.0f} %",
                      f"{r.passing} of {r.tests}", str(r.assignment.time_estimate or "?"), mark)
    score, total = sum(r.score for r in rows), sum(r.max_score for r in rows)
    hours = sum_times([r.assignment.time_estimate for r in rows if r.assignment.time_estimate])
    table.add_row("", "[bold]total[/]", f"[bold]{score:g} / {total:g}[/]",
                  f"{100 * score / total if total else 0:.0f} %",
                  f"{sum(r.passing for r in rows)} of {sum(r.tests for r in rows)}",
                  str(hours or "?"), "")
    console.print(table)
    for r in rows:
        if r.problem and not r.full:
            problem = r.problem if len(r.problem) <= MAX_PROBLEM else r.problem[:MAX_PROBLEM] + " ..."
            console.print(f"[red]{escape(r.assignment.name)}:[/] {escape(visible(problem))}")
    todo = next((r for r in rows if not r.full), None)
    done = f"{sum(r.full for r in rows)} of {len(rows)} assignments at full public points"
    more = f" IMPL={impl}" if impl != DEFAULT_IMPL else ""
    nxt = f"; next: make check A={todo.assignment.name}{more}" if todo else ""
    console.print(f"{done}{escape(nxt)}  [dim]({seconds:.1f} s)[/]")


def last_edited(impl: Path | None) -> tuple[Assignment, bool]:
    """The assignment whose package under `impl` (default: each one's starter) holds the file
    saved last, and whether any was edited at all: when every package's newest file lies
    within UNTOUCHED_S of the others' (a fresh copy), the first assignment, and False."""
    course = discover()
    if not course:
        raise AssignmentError("no assignments in this course (tests/*/assignment.toml)")
    newest: dict[str, float] = {}
    for a in course:
        folder = (impl or a.starter) / a.package
        stamps = [p.stat().st_mtime for p in folder.rglob("*.py")] if folder.is_dir() else []
        if stamps:
            newest[a.name] = max(stamps)
    if not newest:
        return course[0], False
    if max(newest.values()) - min(newest.values()) < UNTOUCHED_S and len(newest) > 1:
        return course[0], False
    name = max(newest, key=newest.__getitem__)
    return next(a for a in course if a.name == name), True


def sum_times(times: list[TimeEstimate]) -> TimeEstimate | None:
    """The estimates added up (None for none)."""
    return sum(times[1:], times[0]) if times else None
