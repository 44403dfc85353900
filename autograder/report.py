"""Reports: Gradescope-schema results.json, and a readable terminal report (rich)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .grading import AssignmentGrade

SCHEMA_PATH = Path(__file__).with_name("gradescope_schema.json")
GRADESCOPE_VISIBILITY = {"public": "visible", "hidden": "after_published"}


def results_json(grades: list[AssignmentGrade], execution_time: float,
                 problems: list[str] = ()) -> dict:
    """Gradescope's results.json for one submission (all its assignments)."""
    tests = []
    for grade in grades:
        a = grade.assignment
        for k, t in enumerate(grade.tests, 1):
            text = t.message
            if t.hints:
                text += "".join(f"\nHint: {h}" for h in t.hints)
            tests.append({
                "name": f"{a.name}: {t.id}", "number": f"{a.number}.{k}",
                "score": t.points, "max_score": t.max_points,
                "status": "passed" if t.passed else "failed", "output": text.strip(),
                "visibility": GRADESCOPE_VISIBILITY[t.visibility],
                "tags": [a.name, Path(t.file).stem],
            })
    lines = [*problems]
    for g in grades:
        lines.append(f"{g.assignment.name}: {g.score:g} / {g.max_score:g}")
        lines += [f"  {p}" for p in g.problems + g.notes]
    return {
        "score": sum(g.score for g in grades),
        "max_score": sum(g.max_score for g in grades),
        "execution_time": round(execution_time, 3),
        "output": "\n".join(lines),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }


def write_results(out_dir: Path, results: dict) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "results.json"
    path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return path


NOT_IMPLEMENTED = "not implemented yet (the stub still raises NotImplementedError)"


def _summary(t) -> str:
    """Failures that say the same thing are listed together."""
    if t.message.startswith("not implemented yet") or t.message.endswith(
            "raised NotImplementedError."):
        return NOT_IMPLEMENTED
    return t.message


def render(grades: list[AssignmentGrade], console: Console | None = None,
           title: str | None = None, problems: list[str] = ()) -> None:
    """Per-test points, what failed (alike failures grouped), and misconception hints."""
    console = console or Console()
    if title:
        console.rule(escape(title))
    for p in problems:
        console.print(f"[bold red]{escape(p)}[/]")
    for grade in grades:
        a = grade.assignment
        pct = 100 * grade.score / grade.max_score if grade.max_score else 0
        console.print(f"[bold]{a.number}. {escape(a.title)}[/]")
        for p in grade.problems:
            console.print(f"[bold red]problem:[/] {escape(p)}")
        for n in grade.notes:
            console.print(f"[yellow]note:[/] {escape(n)}")
        not_run = all(t.message.startswith("not run: ") for t in grade.tests)
        if grade.tests and not_run:
            console.print(f"[red]✗ none of the {len(grade.tests)} tests could run[/]")
        else:
            _render_tests(grade, console)
        console.print(f"[bold]{a.name}: {grade.score:g} / {grade.max_score:g} ({pct:.0f}%)"
                      f"[/]  [dim]{grade.wall_s:.1f} s[/]\n")


def _render_tests(grade: AssignmentGrade, console: Console) -> None:
    table = Table(show_lines=False, expand=False, box=None, pad_edge=False)
    table.add_column("test")
    table.add_column("points", justify="right")
    table.add_column("", justify="center")
    for t in grade.tests:
        mark = "[green]✓[/]" if t.passed else "[red]✗[/]"
        name = escape(t.id) + (" [dim](hidden)[/]" if t.visibility == "hidden" else "")
        table.add_row(name, f"{t.points:g}/{t.max_points:g}", mark)
    console.print(table)
    groups: dict[tuple, list] = {}
    for t in grade.tests:
        if not t.passed:
            groups.setdefault((_summary(t), tuple(t.hints)), []).append(t)
    for (summary, hints), tests in groups.items():
        names = ", ".join(t.id for t in tests[:6]) + (" ..." if len(tests) > 6 else "")
        label = f"{len(tests)} tests ({escape(names)})" if len(tests) > 1 else escape(names)
        console.print(f"[red]✗ {label}[/]: {escape(summary)}")
        for h in hints:
            console.print(f"  [bold magenta]Hint:[/] {escape(h)}")
