"""`python -m autograder demo`: grade the bundled example zips in parallel, then one table.

Each example zip is one job, graded by `pipeline.grade`, PARALLEL of its assignments at once
in two phases (every public child, then every hidden one: the public and hidden children of one
submission never run at the same time); `jobs` examples run at once on a thread pool, as `bulk
--jobs` runs its students (each job's sandboxed children are separate processes; the uid slots
are flocks, exclusive between threads too). A package byte-identical to one an earlier example
holds (broken.zip ships six untouched starters, as starter.zip does) is graded once: the later
example takes that grade (`same_packages`; a deterministic grade of the same bytes on the same
course), and its table cell says so with a `*`. The demo is CPU-bound on two cores (its children
use both cores about nine tenths of the time), so work not done is the time saved.

What a run leaves under OUT/<example>/: results.json (Gradescope's schema), instructor.json, and
report.txt, the full terminal report that `grade` would print. The terminal gets a line per
example as it finishes (also when stdout is a file or pipe), then the summary
table (`summary_table`: assignment x example, score and seconds per cell; the misconceptions
named; each example's verdict) and a last line naming where the reports are.
"""

from __future__ import annotations

import hashlib
import time
import zipfile
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table

from ..assignments import course_root, discover
from ..grading import pipeline
from ..grading.cause_text import sentence
from ..grading.job import GradeJob, JobMode
from ..grading.judge import AssignmentGrade
from ..grading.report import print_report, write_reports
from ..sandbox import SandboxPolicy
from .examples import EXAMPLE_NAMES, examples_dir

REPORT = "report.txt"
PARALLEL = 2  # assignments of one example at once: ddp's timeouts leave the cores idle


@dataclass
class ExampleRun:
    """One example's grade (`results`), or the one-line `error` that stopped its job;
    `shared`: {assignment: the earlier example whose identical package's grade it took}."""

    name: str
    results: pipeline.Results | None
    error: str | None = None
    wall_s: float = 0.0
    shared: dict[str, str] = field(default_factory=dict)


def zip_package_digest(zip_path: Path, package: str) -> str | None:
    """sha256 over the (path below the package, bytes) of every file of `package` in the zip
    (found at the top or one folder down, as intake looks); None when the zip has none."""
    digest, found = hashlib.sha256(), False
    with zipfile.ZipFile(zip_path) as zf:
        for name in sorted(zf.namelist()):
            parts = name.split("/")
            at = next((i for i in (0, 1) if len(parts) > i + 1 and parts[i] == package), None)
            if at is None or name.endswith("/"):
                continue
            found = True
            digest.update("/".join(parts[at + 1:]).encode() + b"\0" + zf.read(name) + b"\0")
    return digest.hexdigest() if found else None


def same_packages(names: tuple[str, ...], assignments: list[str]) -> dict[str, dict[str, str]]:
    """{example: {assignment: the first earlier example whose package of it is byte-identical}}."""
    owner: dict[tuple[str, str], str] = {}
    shared: dict[str, dict[str, str]] = {}
    packages = {a.name: a.package for a in discover()}
    for name in names:
        for a in assignments:
            digest = zip_package_digest(examples_dir() / f"{name}.zip", packages[a])
            if digest is None:
                continue
            first = owner.setdefault((a, digest), name)
            if first != name:
                shared.setdefault(name, {})[a] = first
    return shared


def verdict(run: ExampleRun) -> str:
    """The example's outcome: "full marks", "lost points" or "zero"; "error: ..." when its
    job failed."""
    if run.results is None:
        return f"error: {run.error}"
    r = run.results
    if r.max_score and r.score >= r.max_score:
        return "full marks"
    return "lost points" if r.score > 0 else "zero"


def hints(results: pipeline.Results) -> set[str]:
    """The distinct misconception hints of every test (public and hidden) of the grade."""
    return {h for g in results.grades for t in g.tests for h in t.hints}


def grade_one(name: str, assignments: list[str] | None, policy: SandboxPolicy,
              out: Path, taken: dict[str, AssignmentGrade] | None = None) -> ExampleRun:
    """Grade examples/<name>.zip and write OUT/<name>/{results,instructor}.json and report.txt;
    the assignments in `taken` are not graded again: their grade (of the identical package an
    earlier example holds) is this example's."""
    started = time.monotonic()
    names = assignments or [a.name for a in discover()]
    own = [a for a in names if a not in (taken or {})]
    results = pipeline.grade(GradeJob(examples_dir() / f"{name}.zip", course_root(), JobMode.GRADE,
                                      tuple(own), policy=policy, parallel=PARALLEL)) \
        if own else pipeline.Results([])
    if taken:
        graded = {g.assignment.name: g for g in results.grades} | taken
        results = pipeline.Results([graded[a] for a in names if a in graded], results.problems,
                                   results.warnings, results.execution_time)
    target = out / name
    write_reports(target, results)
    with open(target / REPORT, "w", encoding="utf-8") as f:
        console = Console(file=f, width=100, soft_wrap=True, no_color=True, highlight=False)
        print_report(results.grades, console, title=f"grade examples/{name}.zip",
               problems=results.messages)
        console.print(f"total: {results.score:g} / {results.max_score:g}")
    return ExampleRun(name, results, wall_s=time.monotonic() - started)


def grade_examples(out: Path, jobs: int, policy: SandboxPolicy,
                   assignments: list[str] | None = None,
                   names: tuple[str, ...] = EXAMPLE_NAMES,
                   on_done: Callable[[ExampleRun], None] | None = None) -> list[ExampleRun]:
    """Every example in `names`, `jobs` at a time; the runs in `names` order. A job that raises
    is that example's error, never the demo's crash. `on_done` is called with each run as it
    finishes (in the order they finish). An example whose package of an assignment is
    byte-identical to an earlier example's takes that grade once the earlier job is done (it
    is submitted first, so a pool of one never waits on a job behind it)."""
    runs: dict[str, ExampleRun] = {}
    chosen = assignments or [a.name for a in discover()]
    shared = same_packages(names, chosen)
    futures: dict[str, Future] = {}

    def job(name: str) -> ExampleRun:
        taken = {}
        for a, first in shared.get(name, {}).items():
            earlier = futures[first].result()  # raises: this example's error too
            taken[a] = next(g for g in earlier.results.grades if g.assignment.name == a)
        run = grade_one(name, assignments, policy, out, taken)
        run.shared = shared.get(name, {})
        return run

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for n in names:
            futures[n] = pool.submit(job, n)
        by_future = {f: n for n, f in futures.items()}
        for fut in as_completed(by_future):
            name = by_future[fut]
            try:
                runs[name] = fut.result()
            except Exception as e:  # one example's failure is that example's row
                first = str(e).splitlines()[0] if str(e) else ""
                runs[name] = ExampleRun(name, None, f"{type(e).__name__}: {first}"[:200])
            if on_done is not None:
                on_done(runs[name])
    return [runs[n] for n in names]


def cell(score: float, max_score: float, seconds: float) -> str:
    """One cell of the table: "score/max  seconds"."""
    return f"{score:g}/{max_score:g} {seconds:5.1f}s"


def summary_table(runs: list[ExampleRun], title: str = "demo: the bundled examples") -> Table:
    """Assignment x example: "score/max seconds" per cell; then the total, the number of
    distinct misconception hints named, and the verdict of each example."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("assignment")
    for run in runs:
        table.add_column(run.name, justify="right", no_wrap=True)
    names = [a.name for a in discover()]
    graded = {run.name: {g.assignment.name: g for g in run.results.grades}
              for run in runs if run.results is not None}
    for a in names:
        if not any(a in cells for cells in graded.values()):
            continue
        row = []
        for run in runs:
            g = graded.get(run.name, {}).get(a)
            mark = "*" if a in run.shared else ""
            row.append(cell(g.score, g.max_score, g.wall_s) + mark if g else "—")
        table.add_row(a, *row)
    table.add_section()
    table.add_row("total", *(cell(r.results.score, r.results.max_score, r.wall_s)
                             if r.results else "—" for r in runs), style="bold")
    table.add_row("hints named",
                  *(str(len(hints(r.results))) if r.results else "—" for r in runs))
    table.add_row("verdict", *(verdict(r) for r in runs))
    return table


def run_demo(out: Path, jobs: int, policy: SandboxPolicy, console: Console,
             assignments: list[str] | None = None) -> list[ExampleRun]:
    """Grade the examples, print the summary table and the line naming the reports."""
    started = time.monotonic()
    for line in pipeline.prepare(policy):
        console.print(f"[bold red]{line}[/]")
    finished: list[ExampleRun] = []

    def progress(run: ExampleRun) -> None:  # one line per example as it finishes, also piped
        finished.append(run)
        score = f"{run.results.score:g}/{run.results.max_score:g}, " if run.results else ""
        console.print(f"[{len(finished)}/{len(EXAMPLE_NAMES)}] {run.name}.zip: {verdict(run)} "
                      f"({score}{run.wall_s:.1f} s)", markup=False, highlight=False)

    header = f"grading {len(EXAMPLE_NAMES)} example zips, {jobs} at a time ..."
    if console.is_terminal:
        with console.status(header):
            runs = grade_examples(out, jobs, policy, assignments, on_done=progress)
    else:  # no spinner off a terminal: the header line, then a line per finished example
        console.print(header, markup=False, highlight=False)
        runs = grade_examples(out, jobs, policy, assignments, on_done=progress)
    console.print(summary_table(runs))
    for run in runs:
        if run.shared:
            firsts = ", ".join(sorted(set(run.shared.values())))
            console.print(f"* {run.name}.zip's {', '.join(run.shared)}: the same package as "
                          f"{firsts}.zip's, graded once", markup=False, highlight=False)
    for run in runs:
        problems = [sentence(p) for p in run.results.problems] if run.results else []
        for p in problems:
            console.print(f"{run.name}.zip: {p}", markup=False, highlight=False)
    console.print(f"graded in {time.monotonic() - started:.1f} s ({jobs} at a time); full "
                  f"reports: {out}/<example>/{REPORT} (results.json and instructor.json beside)",
                  markup=False, highlight=False)
    return runs
