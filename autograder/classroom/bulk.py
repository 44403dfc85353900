"""Bulk grading: every submission in a folder (one folder or zip per student), in parallel,
crash-safe and resumable by content.

Each student's job is one `GradeJob` (grade_job.py), made here, before anything runs, and
shipped as is to the executor. A student is skipped only when OUT/<student>/grading.json
records the same key, `GradeJob.key()`: the hash of the submission's bytes, of the course version
(tests, goldens, engine) and of every grading option the job carries (assignments, isolation
mode and limits, placement, timeout); anything else is regraded (`force=True` regrades all).
Each job runs in a child process that dies with this one and keeps its temporary files under
OUT/.work/ (shared by this run's jobs, so the sandbox's uid slots stay exclusive within the
run), which the next run clears; results are written atomically (temporary file + rename), so
a kill -9 at any point loses at most the jobs in flight and never leaves a half-written result.
OUT/run_log.jsonl gets one line per graded student: student, hash, score, time, problems.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.markdown import Markdown
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.text import Text

from ..assignments import VISIBILITIES, Assignment, course_root, discover, load
from ..atomic import write_atomic
from ..backends import Placement
from ..grading import pipeline
from ..grading.judge import all_failed
from ..grading.results import INSTRUCTOR_KEY, GradedRun, ResultsError, read_results
from ..grading.safe_text import clean, utf8_json
from ..sandbox import SandboxPolicy
from .class_report import class_report
from .executors import BulkError, Executor, course_version, job_timeout, run_job
from .grade_job import GradeJob
from .gradebook import write_canvas, write_gradebook
from .html_report import write_html
from .regrade import compare as compare_runs
from .regrade import previous_results, terminal_table
from .regrade import write as write_compare
from .similarity import scan
from .submissions import Submission, SubmissionError, list_submissions, submission_hash, visible
from .workers import LocalWorkers

OUT_FILES = frozenset({"grades.csv", "canvas.csv", "class_report.md", "class_report.html",
                       "run_log.jsonl", "compare.csv", "compare.md"})  # never a student's folder


@dataclass
class StudentOutcome:
    """One student's result in this run: graded now, resumed from disk, or errored; `notes`
    go to the student's message in grades.csv without making it a rejection."""

    student: str
    results: dict | None  # results.json as written (with INSTRUCTOR_KEY's record)
    run: GradedRun | None = None  # the same, read once (results.read_results)
    resumed: bool = False
    error: str | None = None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def class_assignments(names: list[str] | str | None) -> list[Assignment]:
    """The assignments the instructor names, else the course's only assignment: the same for
    every student, never inferred from what some submissions hold. BulkError when none is
    named and the course has several."""
    if isinstance(names, str):
        names = [names]
    if names:
        return [load(n) for n in dict.fromkeys(names)]
    found = discover()
    if len(found) != 1:
        raise BulkError(f"name the assignment(s) to grade with --assignment (the course has "
                        f"{len(found)}: {', '.join(a.name for a in found) or 'none'}); bulk never "
                        f"infers them from the submissions")
    return found


def rejected_results(problem: str, assignments: list[Assignment]) -> dict:
    """results.json of a submission that cannot be read at all: every test of every assignment
    failed, not run, for `problem` (so the student keeps a row and their max score)."""
    started = time.monotonic()
    grades = [all_failed(a, VISIBILITIES, [problem], [], started) for a in assignments]
    return pipeline.Results(grades, [f"submission rejected: {problem}"]).gradescope()


def run_bulk(folder: Path, assignment: list[str] | str | None, out: Path, jobs: int,
             policy: SandboxPolicy | None = None, force: bool = False,
             console: Console | None = None, dask: str | None = None,
             compare: Path | None = None,
             placement: Placement | None = None) -> dict[str, dict]:
    """Grade every submission of `folder` into `out`; returns results.json per student. With
    `dask` (a scheduler address) the jobs run on that Dask cluster (dask_executor.py); with
    `compare` (a previous run's OUT) the students whose grade would change are listed; each
    job's children run on the `placement`'s backend (default: the host)."""
    policy = policy or SandboxPolicy.create()
    console = console or Console()
    class_assignments(assignment)  # refuse before anything is written
    previous = None
    if compare is not None:
        if not Path(compare).is_dir():
            raise BulkError(f"--compare {visible(str(compare))}: no such folder (a previous bulk "
                            f"run's --out)")
        previous = previous_results(Path(compare))
    placement = placement or Placement()
    for line in pipeline.prepare(policy, placement):
        console.print(Text(f"{line}", style="yellow"))
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BulkError(f"another bulk run is writing to {visible(str(out))}") from None
        if dask:
            from .dask_executor import dask_run

            with dask_run(dask) as (run, slots, line):
                console.print(line)
                results, runs = _run_locked(folder, assignment, out, slots, policy, force,
                                            console, run, placement)
        else:
            workers = LocalWorkers()  # long-lived grading processes: their zygotes stay warm
            try:
                results, runs = _run_locked(folder, assignment, out, jobs, policy, force,
                                            console, workers, placement)
            finally:
                workers.close()
        if previous is not None:
            changes = compare_runs(previous, runs)
            write_compare(changes, Path(compare), out)
            console.print(terminal_table(changes, Path(compare)))
            console.print(Text(f"regrade preview: {visible(str(out / 'compare.csv'))}"))
        return results


def make_jobs(subs: list[Submission], assignments: list[Assignment], policy: SandboxPolicy,
              placement: Placement, out: Path) -> dict[str, GradeJob]:
    """Each submission's GradeJob, made once; one that cannot be hashed gets a problem (and
    is hashed by it)."""
    version, root = course_version(assignments), str(course_root())
    work = str((out / ".work").resolve())
    jobs = {}
    for sub in subs:
        try:
            digest = submission_hash(sub)
        except (SubmissionError, OSError, MemoryError) as e:
            sub.problem = visible(str(e) or type(e).__name__)
            digest = submission_hash(sub)
        jobs[sub.student] = GradeJob(str(sub.path.resolve()), digest,
                                     tuple(a.name for a in assignments), policy, placement,
                                     job_timeout(assignments), root, version, work)
    return jobs


def _run_locked(folder: Path, assignment: list[str] | str | None, out: Path, slots: int,
                policy: SandboxPolicy, force: bool, console: Console,
                run: Executor | None = None, placement: Placement | None = None
                ) -> tuple[dict[str, dict], dict[str, GradedRun]]:
    """Grade (or resume) every submission: (results.json, GradedRun) per student."""
    clear_leftovers(out)
    assignments = class_assignments(assignment)
    subs = list_submissions(folder, OUT_FILES)
    jobs = make_jobs(subs, assignments, policy, placement or Placement(), out)
    outcomes: dict[str, StudentOutcome] = {}
    todo: list[Submission] = []
    for sub in subs:
        stored = _stored(out / sub.student, jobs[sub.student].key())
        if stored is not None and not force:
            outcomes[sub.student] = StudentOutcome(sub.student, *stored, resumed=True,
                                            problems=stored[1].rejection(), notes=sub.notes)
        else:
            todo.append(sub)
    if len(todo) < len(subs):
        console.print(f"{len(subs) - len(todo)} of {len(subs)} unchanged, skipped (same "
                      f"submission, course version and options)"
                      + ("; nothing to grade" if not todo else f"; grading {len(todo)}"))
    started = time.monotonic()
    if todo:
        _grade_all(todo, jobs, assignments, out, slots, console, run, outcomes)
    shutil.rmtree(out / ".work", ignore_errors=True)
    results = {s: o.results for s, o in outcomes.items() if o.results is not None}
    runs = {s: o.run for s, o in outcomes.items() if o.run is not None}
    errors = {s: o.error for s, o in outcomes.items() if o.error}
    messages = {s: message(o) for s, o in outcomes.items()}
    write_gradebook(runs, messages, assignments, out / "grades.csv")
    write_canvas(runs, messages, assignments, out / "canvas.csv")
    starters = [a.starter for a in discover()] + [a.starter for a in assignments]
    report = class_report(runs, errors, [s.student for s in subs], assignments,
                          scan(subs, list(dict.fromkeys(starters))),
                          [(s.student, n) for s in sorted(subs, key=lambda s: (s.family, s.student))
                           for n in s.notes])
    write_atomic(out / "class_report.md", report.markdown().encode("utf-8"))
    write_html(out / "class_report.html", report)
    console.print(Markdown(report.markdown(skip=("Students",))))
    console.print(Text(visible(summary_line(outcomes, time.monotonic() - started, out))))
    return results, runs


def _grade_all(todo: list[Submission], jobs: dict[str, GradeJob],
               assignments: list[Assignment], out: Path, slots: int, console: Console,
               run: Executor | None, outcomes: dict[str, StudentOutcome]) -> None:
    """Grade the submissions `todo`, `slots` at once, into `outcomes`, under a progress bar."""
    counts = {"failed": 0, "errored": 0}
    columns = [TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("ETA"), TimeRemainingColumn(),
               TextColumn("[red]{task.fields[failed]} failed, {task.fields[errored]} errored")]
    with Progress(*columns, console=console, transient=False) as progress, \
            ThreadPoolExecutor(max_workers=max(1, slots)) as pool:
        task = progress.add_task("grading", total=len(todo), failed=0, errored=0)
        futures = {pool.submit(grade_job, sub, jobs[sub.student], assignments, out,
                               run or run_job): sub for sub in todo}
        for fut in as_completed(futures):
            sub = futures[fut]
            try:
                outcome = fut.result()
            except Exception as e:  # one student's unexpected failure is that student's error
                outcome = StudentOutcome(sub.student, None, error=f"grading failed: {type(e).__name__}: "
                                  f"{visible(str(e).splitlines()[0] if str(e) else '')}")
            outcome.notes = sub.notes
            outcomes[outcome.student] = outcome
            if outcome.error or outcome.problems:
                counts["errored"] += 1
            elif outcome.run.score < outcome.run.max_score:
                counts["failed"] += 1
            progress.update(task, advance=1, **counts)


def message(outcome: StudentOutcome) -> str:
    """The student's grades.csv message: the error or the rejection, then any notes."""
    parts = [outcome.error] if outcome.error else list(outcome.problems)
    return "; ".join(visible(p) for p in [*parts, *outcome.notes])


def summary_line(outcomes: dict[str, StudentOutcome], seconds: float, out: Path) -> str:
    graded = [o for o in outcomes.values() if not o.resumed]
    full = sum(1 for o in outcomes.values() if o.run and o.run.max_score
               and o.run.score >= o.run.max_score)
    errored = sum(1 for o in outcomes.values() if o.error or o.problems)
    return (f"{len(outcomes)} students: graded {len(graded)}, resumed "
            f"{len(outcomes) - len(graded)} in {seconds:.1f} s; {full} full marks, "
            f"{len(outcomes) - full - errored} lost points, {errored} errored or rejected; "
            f"{out / 'grades.csv'}")


def clear_leftovers(out: Path) -> None:
    """Remove what a killed run left: its jobs' temporary folders and half-written files."""
    shutil.rmtree(out / ".work", ignore_errors=True)
    for p in out.rglob("*.partial"):
        p.unlink(missing_ok=True)


def _stored(folder: Path, key: str) -> tuple[dict, GradedRun] | None:
    """A previous run's (results.json, GradedRun) of this student if its key matches; None
    (regrade) when it does not, or a file is missing or malformed."""
    try:
        meta = json.loads((folder / "grading.json").read_text())
        if not isinstance(meta, dict) or meta.get("key") != key:
            return None
        results = json.loads((folder / "results.json").read_text())
        instructor = folder / "instructor.json"
        results[INSTRUCTOR_KEY] = json.loads(instructor.read_text()) if instructor.exists() else {}
        return results, read_results(results)
    except (OSError, ValueError, TypeError):  # ResultsError is a ValueError
        return None


def grade_job(sub: Submission, job: GradeJob, assignments: list[Assignment], out: Path,
              run: Executor = run_job) -> StudentOutcome:
    """Grade one student's `job` with `run` (an executor: a child process here, or a Dask
    worker), or record the submission's problem without running anything; store results.json,
    then grading.json (the job's key), each atomically, then append the run log line."""
    started = time.monotonic()
    if sub.problem is not None:
        results = rejected_results(sub.problem, assignments)
    else:
        work = out / ".work" / sub.student
        work.mkdir(parents=True, exist_ok=True)
        try:
            results, error = run(job)
        finally:
            shutil.rmtree(work, ignore_errors=True)  # stays empty; .work is cleared at the end
        if error is not None:
            return StudentOutcome(sub.student, None, error=visible(error))
    results = clean(results)
    try:
        run_ = read_results(results)
    except ResultsError as e:
        return StudentOutcome(sub.student, None, error=f"grading printed a malformed results.json: {e}")
    target = out / sub.student
    target.mkdir(parents=True, exist_ok=True)
    instructor = results.pop(INSTRUCTOR_KEY, None) or {}  # hidden hints: never in results.json
    write_atomic(target / "results.json", utf8_json(results) + b"\n")
    write_atomic(target / "instructor.json", utf8_json(instructor) + b"\n")
    results[INSTRUCTOR_KEY] = instructor  # in memory, for the class report's misconceptions
    seconds = round(time.monotonic() - started, 3)
    problems = run_.rejection()
    meta = {"key": job.key(), "student": sub.student, "hash": job.submission_hash,
            "score": results["score"],
            "max_score": results["max_score"], "time": seconds, "problems": problems}
    write_atomic(target / "grading.json", (json.dumps(meta, ensure_ascii=False) + "\n").encode("utf-8"))
    with open(out / "run_log.jsonl", "a", encoding="utf-8") as log:
        log.write(json.dumps({k: meta[k] for k in ("student", "hash", "score", "time",
                                                   "problems")}, ensure_ascii=False) + "\n")
        log.flush()
        os.fsync(log.fileno())
    return StudentOutcome(sub.student, results, run_, problems=problems)
