"""Bulk grading: every submission in a folder (one folder or zip per student), in parallel,
crash-safe and resumable by content.

Each student's job is one `GradeJob` (grading/job.py), made here, before anything runs, and
shipped as is to the executor. A student is skipped only when OUT/<student>/grading.json
records the same key, `GradeJob.key()`: the hash of the submission's bytes, of the course version
(tests, goldens, reference solutions, engine) and of every grading option the job carries (assignments, isolation
mode and limits, placement, timeout); anything else is regraded (`force=True` regrades all).
Each job runs in a child process that dies with this one and keeps its temporary files under
OUT/.work/ (shared by this run's jobs; the sandbox's uid slots are locked machine-wide under
/tmp, sandbox/uids.py), which the next run clears; results are written atomically (temporary file + rename), so
a kill -9 at any point loses at most the jobs in flight and never leaves a half-written result.
OUT/run_log.jsonl gets one line per graded student: student, hash, score, time, problems.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.markdown import Markdown
from rich.text import Text

from ..assignments import VISIBILITIES, Assignment, course_root, discover, load
from ..atomic import write_atomic
from ..backends import Placement
from ..backends.causes import Cause, Reason
from ..committed import CourseFiles, course_files
from ..grading import pipeline
from ..grading.job import GradeJob, JobMode
from ..grading.judge import all_failed
from ..grading.results import INSTRUCTOR_KEY, GradedRun, ResultsError, read_results
from ..grading.safe_text import clean, one_line, utf8_json
from ..sandbox import SandboxPolicy
from .bulk_progress import ProgressLines
from .class_report import STUDENT_PAGE, class_report
from .executors import BulkError, Executor, course_version, job_timeout, run_job
from .gradebook import write_canvas, write_gradebook
from .html_report import write_html, write_student_page
from .interrupt import BulkInterrupted, ClassCount, Interrupted, StopSignals
from .regrade import compare as compare_runs
from .regrade import previous_results, terminal_table, write_comparison
from .similarity import scan
from .submissions import Submission, SubmissionError, list_submissions, submission_hash
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
    grades = [all_failed(a, VISIBILITIES, [Reason(Cause.NOT_A_SUBMISSION, detail=problem)], [],
                         started) for a in assignments]
    return pipeline.Results(grades, [Reason(Cause.SUBMISSION_REJECTED, detail=problem)]).gradescope()


def run_bulk(folder: Path, assignment: list[str] | str | None, out: Path, jobs: int,
             policy: SandboxPolicy | None = None, force: bool = False,
             console: Console | None = None, dask: str | None = None,
             compare: Path | None = None,
             placement: Placement | None = None,
             stop: StopSignals | None = None) -> dict[str, dict]:
    """Grade every submission of `folder` into `out`; returns results.json per student. With
    `dask` (a scheduler address) the jobs run on that Dask cluster (dask_executor.py); with
    `compare` (a previous run's OUT) the students whose grade would change are listed; each
    job's children run on the `placement`'s backend (default: the host). SIGINT or SIGTERM
    (`stop`: the caller's handlers, else installed here) stops it (interrupt.py): queued
    students are cancelled, running jobs killed, grades.csv and canvas.csv written for the
    students done, and BulkInterrupted raised."""
    if stop is None:
        with StopSignals() as own:
            return run_bulk(folder, assignment, out, jobs, policy, force, console, dask,
                            compare, placement, own)
    count = ClassCount()
    try:
        with stop.armed():
            policy = policy or SandboxPolicy.create()
            console = console or Console()
            class_assignments(assignment)  # refuse before anything is written
            previous = None
            if compare is not None:
                if not Path(compare).is_dir():
                    raise BulkError(f"--compare {one_line(str(compare))}: no such folder (a "
                                    f"previous bulk run's --out)")
                previous = previous_results(Path(compare))
            placement = placement or Placement()
            for line in pipeline.prepare(policy, placement):
                console.print(Text(f"{line}", style="yellow"))
        out.mkdir(parents=True, exist_ok=True)
        with open(out / ".lock", "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise BulkError(f"another bulk run is writing to {one_line(str(out))}") from None
            setting = ClassSetting(folder, assignment, out, policy, force, console,
                                   placement, stop, count)
            if dask:
                from .dask_executor import dask_run

                with stop.armed(), dask_run(dask) as (run, slots, line):
                    console.print(line)
                    results, runs = _run_locked(setting, slots, run)
            else:
                workers = LocalWorkers()  # long-lived grading processes: their zygotes stay warm
                try:
                    results, runs = _run_locked(setting, jobs, workers)
                finally:
                    workers.close()
            if previous is not None:
                changes = compare_runs(previous, runs)
                write_comparison(changes, Path(compare), out)
                console.print(terminal_table(changes, Path(compare)))
                console.print(Text(f"regrade preview: {one_line(str(out / 'compare.csv'))}"))
            return results
    except Interrupted:
        if count.total is None:
            count.total = len(list_submissions(folder, OUT_FILES))
        raise BulkInterrupted(count.graded, count.total) from None


@dataclass
class ClassSetting:
    """What one bulk run grades, where, how, and how it reports and stops."""

    folder: Path
    assignment: list[str] | str | None
    out: Path
    policy: SandboxPolicy
    force: bool
    console: Console
    placement: Placement
    stop: StopSignals
    count: ClassCount


def make_jobs(subs: list[Submission], assignments: list[Assignment], policy: SandboxPolicy,
              placement: Placement, out: Path) -> dict[str, GradeJob]:
    """Each submission's GradeJob, made once; one that cannot be hashed gets a problem (and
    is hashed by it)."""
    version, root = course_version(assignments), course_root()
    work = (out / ".work").resolve()
    jobs = {}
    for sub in subs:
        try:
            digest = submission_hash(sub)
        except (SubmissionError, OSError, MemoryError) as e:
            sub.problem = one_line(str(e) or type(e).__name__)
            digest = submission_hash(sub)
        jobs[sub.student] = GradeJob(sub.path.resolve(), root, JobMode.GRADE,
                                     tuple(a.name for a in assignments), policy=policy,
                                     placement=placement, work=work,
                                     timeout=job_timeout(assignments), submission_hash=digest,
                                     course_version=version)
    return jobs


def _run_locked(setting: ClassSetting, slots: int, run: Executor
                ) -> tuple[dict[str, dict], dict[str, GradedRun]]:
    """Grade (or resume) every submission: (results.json, GradedRun) per student. Interrupted
    while grading: the students done are written (grades.csv, canvas.csv), then
    BulkInterrupted; during the similarity scan: the same, after grades.csv."""
    out, console, stop, count = setting.out, setting.console, setting.stop, setting.count
    with stop.armed():
        clear_leftovers(out)
        assignments = class_assignments(setting.assignment)
        subs = list_submissions(setting.folder, OUT_FILES)
        count.total = len(subs)
        jobs = make_jobs(subs, assignments, setting.policy, setting.placement, out)
        outcomes: dict[str, StudentOutcome] = {}
        todo: list[Submission] = []
        for sub in subs:
            stored = _stored(out / sub.student, jobs[sub.student].key())
            if stored is not None and not setting.force:
                if not (out / sub.student / STUDENT_PAGE).exists():  # graded by an older engine
                    write_student_page(out / sub.student, sub.student, *stored)
                outcomes[sub.student] = StudentOutcome(
                    sub.student, *stored, resumed=True, problems=stored[1].rejection(),
                    notes=sub.notes)
            else:
                todo.append(sub)
    count.graded = len(outcomes)
    if len(todo) < len(subs):
        console.print(f"{len(subs) - len(todo)} of {len(subs)} unchanged, skipped (same "
                      f"submission, course version and options)"
                      + ("; nothing to grade" if not todo else f"; grading {len(todo)}"))
    started = time.monotonic()
    stopped = bool(todo) and not _grade_all(todo, jobs, assignments, setting, slots, run,
                                             outcomes)
    shutil.rmtree(out / ".work", ignore_errors=True)
    results = {s: o.results for s, o in outcomes.items() if o.results is not None}
    runs = {s: o.run for s, o in outcomes.items() if o.run is not None}
    errors = {s: o.error for s, o in outcomes.items() if o.error}
    messages = {s: message(o) for s, o in outcomes.items()}
    pending = [s.student for s in subs if s.student not in outcomes]
    write_gradebook(runs, messages, assignments, out / "grades.csv", pending)
    write_canvas(runs, messages, assignments, out / "canvas.csv", pending)
    if stopped:
        raise BulkInterrupted(count.graded, count.total)
    try:
        with stop.armed(), tempfile.TemporaryDirectory(prefix="similarity-baseline-") as tree:
            similar = scan(subs, [starter_baseline(console).write(Path(tree)) / "starter"])
    except Interrupted:
        raise BulkInterrupted(count.graded, count.total) from None
    report = class_report(runs, errors, [s.student for s in subs], assignments, similar,
                          [(s.student, n) for s in sorted(subs, key=lambda s: (s.family, s.student))
                           for n in s.notes])
    write_atomic(out / "class_report.md", report.markdown().encode("utf-8"))
    write_html(out / "class_report.html", report)
    if console.is_terminal:
        console.print(Markdown(report.markdown(skip=("Students",))))
    console.print(Text(one_line(summary_line(outcomes, time.monotonic() - started, out))))
    console.print(Text(one_line(f"class report: {out / 'class_report.md'} and "
                               f"{out / 'class_report.html'}")))
    if stop.signum is not None:  # it came while the reports were written: all is done
        raise BulkInterrupted(count.graded, count.total)
    return results, runs


def _grade_all(todo: list[Submission], jobs: dict[str, GradeJob],
               assignments: list[Assignment], setting: ClassSetting, slots: int,
               run: Executor, outcomes: dict[str, StudentOutcome]) -> bool:
    """Grade the submissions `todo`, `slots` at once, into `outcomes`: under a progress bar
    on a terminal, else one line per student. False when a signal stopped it: the queued
    students cancelled, the running jobs killed (`run.stop`), only finished ones kept."""
    out, count = setting.out, setting.count
    shown = ProgressLines(setting.console, len(todo))
    with shown, ThreadPoolExecutor(max_workers=max(1, slots)) as pool:
        futures = {pool.submit(grade_job, sub, jobs[sub.student], assignments, out, run): sub
                   for sub in todo}

        def take(fut, sub: Submission) -> None:
            try:
                outcome = fut.result()
            except Exception as e:  # one student's unexpected failure is that student's error
                outcome = StudentOutcome(sub.student, None, error=f"grading failed: "
                                         f"{type(e).__name__}: "
                                         f"{one_line(str(e).splitlines()[0] if str(e) else '')}")
            outcome.notes = sub.notes
            outcomes[outcome.student] = outcome
            shown.student(outcome)

        try:
            with setting.stop.armed():
                for fut in as_completed(list(futures)):
                    take(fut, futures[fut])
                    del futures[fut]
        except Interrupted:
            for fut in futures:
                fut.cancel()
            halt = getattr(run, "stop", None)
            if halt is not None:
                halt()
            pool.shutdown(wait=True, cancel_futures=True)
            for fut, sub in futures.items():  # finished meanwhile: kept if it has results
                if sub.student not in outcomes and fut.done() and not fut.cancelled() \
                        and fut.exception() is None and fut.result().results is not None:
                    take(fut, sub)
            return False
        finally:
            count.graded = sum(o.results is not None for o in outcomes.values())
    return True


def starter_baseline(console: Console) -> CourseFiles:
    """What the similarity scan subtracts: the starter every student received, every
    assignment's, from the course as committed (committed.course_files, the release's source;
    the note naming uncommitted changes to it is printed)."""
    baseline = course_files(course_root(), ["starter"])
    note = baseline.note("the similarity baseline (the starters students received)")
    if note:
        console.print(Text(one_line(note), style="yellow"))
    return baseline


def message(outcome: StudentOutcome) -> str:
    """The student's grades.csv message: the error or the rejection (else the assignments
    whose package did not import), then any notes."""
    parts = [outcome.error] if outcome.error else list(outcome.problems)
    if not parts and outcome.run is not None:
        parts = outcome.run.package_problems()
    return "; ".join(one_line(p) for p in [*parts, *outcome.notes])


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
            return StudentOutcome(sub.student, None, error=one_line(error))
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
    write_student_page(target, sub.student, results, run_)
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
