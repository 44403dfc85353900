"""Bulk's progress as the instructor sees it (`ProgressLines`): a bar on a terminal (graded
of total, time, ETA, failed and errored so far); elsewhere (a file, a pipe, a CI log) one line
per student as it finishes, `[k/n] student: score/max` and, for a student who got nothing
graded, the one-line reason (the error or the rejection)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.text import Text

from ..grading.safe_text import one_line

if TYPE_CHECKING:
    from .bulk import StudentOutcome


class ProgressLines:
    """Bulk's progress: a bar on a terminal (graded of total, time, ETA, failed and errored so
    far); elsewhere (a file, a pipe, a CI log) one line per student as it finishes."""

    def __init__(self, console: Console, total: int):
        self.console, self.total, self.done = console, total, 0
        self.counts = {"failed": 0, "errored": 0}
        self.bar = None
        if console.is_terminal:
            columns = [TextColumn("grading"), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                       TextColumn("[red]{task.fields[failed]} failed, {task.fields[errored]} "
                                  "errored")]
            self.bar = Progress(*columns, console=console, transient=False)
            self.task = self.bar.add_task("grading", total=total, failed=0, errored=0)

    def __enter__(self) -> ProgressLines:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()

    def student(self, outcome: StudentOutcome) -> None:
        self.done += 1
        why = outcome.error or "; ".join(outcome.problems)
        if why:
            self.counts["errored"] += 1
        elif outcome.run.score < outcome.run.max_score:
            self.counts["failed"] += 1
        if self.bar is not None:
            self.bar.update(self.task, advance=1, **self.counts)
            return
        score = f"{outcome.run.score:g}/{outcome.run.max_score:g}" if outcome.run else "no grade"
        self.console.print(Text(one_line(f"[{self.done}/{self.total}] {outcome.student}: {score}"
                                        + (f" ({why})" if why else ""))))
