"""Reports: Gradescope-schema results.json, and a readable terminal report (rich), both
organized like the handout: by task (number, title, points), then its tests.

Visible text (results.json's top-level `output`, public tests) never carries hidden points,
and nothing computed from a hidden comparison: a hidden test's hints go only to the instructor
(`instructor_json`, OUT/instructor.json, and the terminal report, which students never see).
Every string written is valid UTF-8 (`safe_text`), and one assignment's text in results.json
is capped (MAX_ASSIGNMENT_TEXT): with the manifest's own fields (~300 bytes per test) that keeps
results.json under 1 MiB per assignment for any submission.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from ..assignments import Visibility
from ..backends.base import Outcome
from ..backends.causes import Cause, Reason
from .cause_text import first_line, sentence
from .judge import AssignmentGrade, TestResult
from .results import GRADESCOPE_VISIBILITY, RESULTS_KEY, machine_fields
from .safe_text import utf8_json, visible
from .tasks import natural_key

SCHEMA_PATH = Path(__file__).with_name("gradescope_schema.json")
MAX_NAMES = 6
MAX_ASSIGNMENT_TEXT = 512 * 1024  # characters of one assignment's messages in results.json
MAX_SUMMARY_LINES = 40  # problem and note lines per assignment in the top-level output
CUT_NOTE = "(cut: this submission's report reached its size limit)"
NAME_SEP = " · "  # between assignment, task label and test id in a test's display name
HINT_PREFIX = "Hint: "  # a shown hint's line in a test's output
ALSO_PREFIX = "Also consistent with: "  # the line of a test's second hint (hints.rank_across_run)
PRINTED_HEAD = "It printed (the last lines):"  # before a failing public test's printed lines
MAX_REASON = 500  # characters of a not-run reason in a test's machine fields (one line)


@dataclass
class Results:
    """One submission's grade, what the pipeline returns: per assignment, plus what concerns
    the submission as a whole (`problems`: rejected zip, no package found) and the isolation
    `warnings` of this run."""

    grades: list[AssignmentGrade]
    problems: list[Reason] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    execution_time: float = 0.0

    @property
    def score(self) -> float:
        return sum(g.score for g in self.grades)

    @property
    def max_score(self) -> float:
        return sum(g.max_score for g in self.grades)

    @property
    def messages(self) -> list[str]:
        """What concerns the submission as a whole, as text: the warnings, then the problems."""
        return self.warnings + [sentence(p) for p in self.problems]

    def gradescope(self) -> dict:
        """results.json in Gradescope's schema."""
        return results_json(self.grades, self.execution_time, self.messages)

    def instructor(self) -> dict:
        """What only the instructor sees (OUT/instructor.json): hints of hidden tests too."""
        return instructor_json(self.grades)


class TextBudget:
    """Characters left for one assignment's text: `take` returns a text whole while the budget
    lasts, then its first line (at most 200 characters) and CUT_NOTE."""

    def __init__(self, limit: int = MAX_ASSIGNMENT_TEXT):
        self.left = limit

    def take(self, text: str) -> str:
        if len(text) <= self.left:
            self.left -= len(text)
            return text
        first = text.split("\n", 1)[0][:200]
        self.left = max(0, self.left - len(first))
        return f"{first}\n{CUT_NOTE}"


def _e(text: str) -> str:
    """Text for rich markup: visible (valid UTF-8), then escaped."""
    return escape(visible(text))


def task_order(tests: list[TestResult]) -> list[TestResult]:
    """Tests in handout order: by task number (tests naming no task last), then as run."""
    return sorted(tests, key=lambda t: (t.task is None, t.task or 0))


def by_task(tests: list[TestResult]) -> list[tuple[str, list[TestResult]]]:
    """[(task label, its tests)] in handout order."""
    groups: dict[str, list[TestResult]] = {}
    for t in task_order(tests):
        groups.setdefault(task_label(t), []).append(t)
    return list(groups.items())


def task_label(t: TestResult) -> str:
    if t.task is None:
        return "Other tests"
    return f"Task {t.task}: {t.task_title}" if t.task_title else f"Task {t.task}"


def _points(tests: list[TestResult]) -> tuple[float, float]:
    return sum(t.points for t in tests), sum(t.max_points for t in tests)


def results_json(grades: list[AssignmentGrade], execution_time: float,
                 problems: list[str] = ()) -> dict:
    """Gradescope's results.json for one submission (all its assignments). Test `number`s
    follow the handout's task order; `name` carries the task. Only public tests show hints;
    each assignment's text shares one TextBudget."""
    tests, summary = [], []
    for grade in grades:
        a, budget = grade.assignment, TextBudget()
        summary += [budget.take(line) for line in visible_summary(grade)]
        for k, t in enumerate(task_order(grade.tests), 1):
            text = t.message
            shown = list(t.hints) if t.visibility == Visibility.PUBLIC else []
            text += "".join(f"\n{ALSO_PREFIX if i else HINT_PREFIX}{h}"
                            for i, h in enumerate(shown))
            if t.printed and t.visibility == Visibility.PUBLIC:
                text += f"\n{PRINTED_HEAD}\n" + "\n".join(f"| {ln}" for ln in t.printed.splitlines())
            tags = [a.name, Path(t.file).stem] + ([f"task {t.task}"] if t.task is not None else [])
            not_run = None if t.not_run is None else \
                visible(first_line(t.not_run)).rstrip()[:MAX_REASON]
            tests.append({
                "name": display_name(t), "number": f"{a.number}.{k}",
                "score": t.points, "max_score": t.max_points,
                "status": Outcome.PASSED if t.passed else Outcome.FAILED,
                "output": budget.take(text.strip()),
                "visibility": GRADESCOPE_VISIBILITY[t.visibility],
                "tags": tags,
                "extra_data": machine_fields(a.name, t.task, t.task_title, t.id, t.file,
                                             t.visibility, shown, not_run),
            })
    return {
        "score": sum(g.score for g in grades),
        "max_score": sum(g.max_score for g in grades),
        "execution_time": round(execution_time, 3),
        "output": "\n".join([*problems, *summary]),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {RESULTS_KEY: {"notes": [f"{g.assignment.name}: {visible(n)}"
                                              for g in grades for n in g.notes],
                                     # why an assignment's package did not run: one line each
                                     "package_errors": {
                                         g.assignment.name: visible(why)[:MAX_REASON]
                                         for g in grades if (why := package_problem(g))},
                                     # how each assignment's children started (RunPath)
                                     "paths": {g.assignment.name: g.run.path
                                               for g in grades if g.run is not None}}},
    }


def package_problem(grade: AssignmentGrade) -> str | None:
    """One line: why the assignment's package did not run (its import failed, or imported a
    forbidden module while being imported), from its run's causes (the first line of the
    cause's text, cause_text.first_line); None when it ran, or no run said why (every child
    redacted)."""
    if grade.run is None or not grade.run.package_error:
        return None
    whys = sorted(grade.run.collect_errors, key=lambda why: why.cause not in (
        Cause.PACKAGE_IMPORT, Cause.FORBIDDEN_IMPORT))
    return first_line(whys[0]) if whys else None


def instructor_json(grades: list[AssignmentGrade]) -> dict:
    """What only the instructor sees (OUT/instructor.json, never given to Gradescope): every
    failed test's misconception hints, hidden tests' included, by results.json test name; and,
    where a grading's draw had no expected value for some test (it counted for nothing there),
    why, under "unavailable" (the reason may quote the reference's values)."""
    data = {"hints": {display_name(t): list(t.hints)
                      for g in grades for t in task_order(g.tests) if t.hints}}
    unavailable = {display_name(t): g.unavailable[t.id]
                   for g in grades for t in task_order(g.tests) if t.id in g.unavailable}
    if unavailable:
        data["unavailable"] = unavailable
    return data


def display_name(t: TestResult) -> str:
    """A test's results.json name, "assignment · Task N: title · id": display text, and the
    key instructor.json's hints are filed under (never parsed: read results.py's fields)."""
    return NAME_SEP.join((t.assignment, task_label(t), t.id))


def visible_summary(grade: AssignmentGrade) -> list[str]:
    """What a student may read before release: public points only, per assignment and task."""
    public = [t for t in grade.tests if t.visibility == Visibility.PUBLIC]
    score, total = _points(public)
    hidden = any(t.visibility == Visibility.HIDDEN for t in grade.tests)
    lines = [f"{grade.assignment.name}: {score:g} / {total:g} public points"
             + (" (hidden tests are scored when grades are published)" if hidden else "")]
    said = [sentence(p) for p in grade.problems] + grade.notes
    lines += [f"  {p}" for p in said[:MAX_SUMMARY_LINES]]
    if len(said) > MAX_SUMMARY_LINES:
        lines.append(f"  ... {len(said) - MAX_SUMMARY_LINES:,} more problems and notes cut")
    for label, tests in by_task(public):
        got, out_of = _points(tests)
        lines.append(f"  {label}: {got:g} / {out_of:g}")
    return lines


def write_reports(out_dir: Path, results: Results) -> Path:
    """OUT/results.json (what the student sees) and OUT/instructor.json beside it; returns the
    former's path."""
    path = write_results(out_dir, results.gradescope())
    write_instructor(out_dir, results.instructor())
    return path


def write_results(out_dir: Path, results: dict) -> Path:
    """OUT/results.json, as strict UTF-8 (undecodable names escaped)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "results.json"
    path.write_bytes(utf8_json(results) + b"\n")
    return path


def write_instructor(out_dir: Path, data: dict) -> Path:
    """OUT/instructor.json (instructor_json), beside results.json; strict UTF-8."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "instructor.json"
    path.write_bytes(utf8_json(data) + b"\n")
    return path


def print_report(grades: list[AssignmentGrade], console: Console | None = None,
           title: str | None = None, problems: list[str] = (), timing: bool = True) -> None:
    """Per task: its points, then its tests, what failed (alike failures grouped), and each
    distinct misconception hint once, with the tests it explains."""
    console = console or Console()
    if title:
        console.rule(_e(title))
    for p in problems:
        console.print(f"[bold red]{_e(p)}[/]")
    for grade in grades:
        a = grade.assignment
        pct = 100 * grade.score / grade.max_score if grade.max_score else 0
        console.print(f"[bold]{a.number}. {_e(a.title)}[/]")
        for p in grade.problems:
            console.print(f"[bold red]problem:[/] {_e(sentence(p))}")
        for n in grade.notes:
            console.print(f"[yellow]note:[/] {_e(n)}")
        not_run = all(t.not_run is not None for t in grade.tests)
        if grade.tests and not_run:
            console.print(f"[red]✗ none of the {len(grade.tests)} tests could run[/]")
        else:
            for label, tests in by_task(grade.tests):
                _render_task(label, tests, console)
        path = f", {grade.run.path} start" if grade.run is not None else ""
        took = f"  [dim]{grade.wall_s:.1f} s{path}[/]" if timing else ""
        console.print(f"[bold]{a.name}: {grade.score:g} / {grade.max_score:g} ({pct:.0f}%)"
                      f"[/]{took}\n")


def _names(tests: list[TestResult]) -> str:
    names = sorted((t.id for t in tests), key=natural_key)
    return ", ".join(names[:MAX_NAMES]) + (" ..." if len(names) > MAX_NAMES else "")


def _render_task(label: str, tests: list[TestResult], console: Console) -> None:
    got, out_of = _points(tests)
    passed = sum(t.passed for t in tests)
    mark = "[green]✓[/]" if passed == len(tests) else "[red]✗[/]"
    console.print(f"{mark} [bold]{_e(label)}[/]  {got:g} / {out_of:g} points "
                  f"({passed} of {len(tests)} tests pass)")
    width = max(len(t.id) for t in tests) + 2
    for t in tests:
        sign = "[green]✓[/]" if t.passed else "[red]✗[/]"
        hidden = " [dim](hidden)[/]" if t.visibility == Visibility.HIDDEN else ""
        console.print(f"    {sign} {_e(t.id.ljust(width))}{t.points:g}/{t.max_points:g}"
                      f"{hidden}")
    groups: dict[str, list[TestResult]] = {}
    hints: dict[str, list[TestResult]] = {}
    first: set[str] = set()  # hints named first by some test; the others are "also consistent"
    for t in tests:
        if not t.passed:
            groups.setdefault(t.message, []).append(t)
            first.update(t.hints[:1])
            for h in t.hints:
                hints.setdefault(h, []).append(t)
    for summary, failed in groups.items():
        label_ = f"{len(failed)} tests ({_names(failed)})" if len(failed) > 1 else _names(failed)
        lines = summary.splitlines() or [""]
        console.print(f"    [red]✗ {_e(label_)}[/]: {_e(lines[0])}")
        for line in lines[1:]:
            console.print(f"        {_e(line)}")
    for t in tests:
        if not t.passed and t.printed and t.visibility == Visibility.PUBLIC:
            console.print(f"    [dim]{_e(t.id)} printed (the last lines):[/]")
            for line in t.printed.splitlines():
                console.print(f"      [dim]|[/] {_e(line)}")
    for hint, explained in sorted(hints.items(), key=lambda item: item[0] not in first):
        label_ = "Hint:" if hint in first else "Also consistent with:"
        console.print(f"    [bold magenta]{label_}[/] {_e(hint)} [dim](explains "
                      f"{_e(_names(explained))})[/]")
