"""Bulk grading: every submission in a folder (one folder or zip per student), in parallel,
crash-safe and resumable by content.

A student is skipped only when OUT/<student>/grading.json records the same key: the hash of the
submission's bytes, of the course version (tests, goldens, engine) and of the options; anything
else is regraded (`force=True` regrades all). Each job runs in a child process that dies with
this one and keeps its temporary files under OUT/.work/ (shared by this run's jobs, so the
sandbox's uid slots stay exclusive within the run), which the next run clears; results are
written atomically (temporary file + rename), so a kill -9 at any point loses at most the jobs in
flight and never leaves a half-written result. OUT/run_log.jsonl gets one line per graded
student: student, hash, score, time, problems.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.markdown import Markdown
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from . import service
from .assignments import Assignment, discover, load
from .atomic import write_atomic
from .class_report import class_report
from .gradebook import write_canvas, write_gradebook
from .html_report import write_html
from .intake import find_package
from .report import INSTRUCTOR_KEY
from .safe_text import utf8_json
from .sandbox import SandboxPolicy

ENGINE = Path(__file__).resolve().parent
JOB_TIMEOUT_FACTOR = 3  # a job may take this many times the assignments' run timeouts


class BulkError(Exception):
    """The bulk run cannot start (e.g. another run holds the output folder)."""


@dataclass
class Outcome:
    """One student's result in this run: graded now, resumed from disk, or errored."""

    student: str
    results: dict | None
    resumed: bool = False
    error: str | None = None
    problems: list[str] = field(default_factory=list)


def student_name(path: Path) -> str:
    return path.stem if path.suffix == ".zip" else path.name


def list_submissions(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir()
                  if not p.name.startswith(".") and (p.is_dir() or p.suffix == ".zip"))


def submission_hash(path: Path) -> str:
    """sha256 of the submission's bytes: the zip file, or every file of the folder (relative
    path and content, in sorted order; symbolic links by their target text)."""
    h = hashlib.sha256()
    if path.is_file():
        h.update(path.read_bytes())
        return h.hexdigest()
    for p in sorted(path.rglob("*")):
        rel = p.relative_to(path).as_posix().encode()
        if p.is_symlink():
            h.update(b"L" + rel + b"\0" + os.readlink(p).encode() + b"\0")
        elif p.is_file():
            h.update(b"F" + rel + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def course_version(assignments: list[Assignment]) -> str:
    """sha256 over the assignments' tests and goldens and the engine's source."""
    h = hashlib.sha256()
    files = [p for a in assignments for p in sorted(a.tests_dir.rglob("*"))]
    files += sorted(ENGINE.rglob("*.py"))
    for p in files:
        if p.is_file() and "__pycache__" not in p.parts:
            h.update(str(p).encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def options_key(assignments: list[Assignment], policy: SandboxPolicy) -> str:
    return json.dumps({"assignments": [a.name for a in assignments], "mode": policy.mode,
                       "backend": policy.backend, "limits": repr(policy.limits),
                       "disabled": sorted(policy.disabled)}, sort_keys=True)


def class_assignments(subs: list[Path], assignment: str | None) -> list[Assignment]:
    """The assignment asked for, or every assignment whose package some submission holds (so a
    rejected submission is graded against them too, with its max score)."""
    if assignment:
        return [load(assignment)]
    found = set()
    for sub in subs:
        if sub.is_dir():
            found |= {a.name for a in discover() if find_package(sub, a.package)}
        else:
            import zipfile

            try:
                names = zipfile.ZipFile(sub).namelist()
            except (zipfile.BadZipFile, OSError):
                continue
            found |= {a.name for a in discover()
                      if any(f"{a.package}/__init__.py" in n for n in names)}
    return [a for a in discover() if a.name in found]


def run_bulk(folder: Path, assignment: str | None, out: Path, jobs: int,
             policy: SandboxPolicy | None = None, force: bool = False,
             console: Console | None = None, dask: str | None = None) -> dict[str, dict]:
    """Grade every submission of `folder` into `out`; returns results.json per student. With
    `dask` (a scheduler address) the jobs run on that Dask cluster (bulk_dask.py)."""
    policy = policy or SandboxPolicy.create()
    console = console or Console()
    for line in service.prepare(policy):
        console.print(f"[yellow]{line}[/]")
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BulkError(f"another bulk run is writing to {out}") from None
        if dask:
            from .bulk_dask import dask_run

            with dask_run(dask) as (run, slots, line):
                console.print(line)
                return _run_locked(folder, assignment, out, slots, policy, force, console, run)
        return _run_locked(folder, assignment, out, jobs, policy, force, console)


def _run_locked(folder: Path, assignment: str | None, out: Path, jobs: int,
                policy: SandboxPolicy, force: bool, console: Console,
                run: Callable | None = None) -> dict[str, dict]:
    clear_leftovers(out)
    subs = list_submissions(folder)
    assignments = class_assignments(subs, assignment)
    version, options = course_version(assignments), options_key(assignments, policy)
    outcomes: dict[str, Outcome] = {}
    todo: list[tuple[Path, str]] = []
    for sub in subs:
        key = hashlib.sha256(f"{submission_hash(sub)}|{version}|{options}".encode()).hexdigest()
        stored = _stored(out / student_name(sub), key)
        if stored is not None and not force:
            outcomes[student_name(sub)] = Outcome(student_name(sub), stored, resumed=True,
                                                  problems=rejection(stored))
        else:
            todo.append((sub, key))
    if len(todo) < len(subs):
        console.print(f"resuming: {len(subs) - len(todo)} of {len(subs)} already graded "
                      f"(same submission, course version and options)")
    started = time.monotonic()
    counts = {"failed": 0, "errored": 0}
    columns = [TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("ETA"), TimeRemainingColumn(),
               TextColumn("[red]{task.fields[failed]} failed, {task.fields[errored]} errored")]
    with Progress(*columns, console=console, transient=False) as progress, \
            ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        task = progress.add_task("grading", total=len(todo), failed=0, errored=0)
        futures = {pool.submit(grade_job, sub, key, assignments, out, policy, run or run_job): sub
                   for sub, key in todo}
        for fut in as_completed(futures):
            outcome = fut.result()
            outcomes[outcome.student] = outcome
            if outcome.error or outcome.problems:
                counts["errored"] += 1
            elif outcome.results["score"] < outcome.results["max_score"]:
                counts["failed"] += 1
            progress.update(task, advance=1, **counts)
    shutil.rmtree(out / ".work", ignore_errors=True)
    results = {s: o.results for s, o in outcomes.items() if o.results is not None}
    errors = {s: o.error for s, o in outcomes.items() if o.error}
    write_gradebook(results, errors, assignments, out / "grades.csv")
    write_canvas(results, errors, assignments, out / "canvas.csv")
    report = class_report(results, errors, {student_name(s): s for s in subs}, assignments)
    write_atomic(out / "class_report.md", report.encode())
    write_html(out / "class_report.html", report, results, assignments)
    console.print(Markdown(report))
    console.print(summary_line(outcomes, time.monotonic() - started, out))
    return results


def rejection(results: dict) -> list[str]:
    """Why nothing of the submission ran (every test "not run: ..."), else []."""
    tests = results.get("tests", [])
    if tests and all(t["output"].startswith("not run: ") for t in tests):
        return sorted({t["output"].removeprefix("not run: ").splitlines()[0] for t in tests})
    return [] if tests else ([results.get("output", "").strip() or "nothing graded"])


def summary_line(outcomes: dict[str, Outcome], seconds: float, out: Path) -> str:
    graded = [o for o in outcomes.values() if not o.resumed]
    full = sum(1 for o in outcomes.values() if o.results and o.results["max_score"]
               and o.results["score"] >= o.results["max_score"])
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


def _stored(folder: Path, key: str) -> dict | None:
    try:
        meta = json.loads((folder / "grading.json").read_text())
        results = json.loads((folder / "results.json").read_text())
        instructor = folder / "instructor.json"
        results[INSTRUCTOR_KEY] = json.loads(instructor.read_text()) if instructor.exists() else {}
    except (OSError, ValueError):
        return None
    return results if meta.get("key") == key else None


def job_timeout(assignments: list[Assignment]) -> float:
    return JOB_TIMEOUT_FACTOR * sum(2 * a.run_timeout for a in assignments) + 60


def run_job(sub: Path, names: list[str], policy: SandboxPolicy, work: Path, timeout: float,
            env: dict[str, str] | None = None) -> tuple[dict | None, str | None]:
    """Run `python -m autograder.bulk_job` on one submission in a child process that dies with
    this one, with TMPDIR=work: (results.json, None), or (None, a one-line error)."""
    cmd = [sys.executable, "-m", "autograder.bulk_job", str(sub.resolve()),
           "--isolation", policy.mode, "--backend", policy.backend, "--parent", str(os.getpid())]
    for name in names:
        cmd += ["--assignment", name]
    # One temporary folder for all of this run's jobs (never one per job: the sandbox's uid
    # slots are locked under TMPDIR, and jobs must see each other's locks).
    env = {**os.environ, **(env or {}), "TMPDIR": str(work.resolve())}
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return None, f"grading failed: {tail}"
        return json.loads(proc.stdout.strip().splitlines()[-1]), None
    except subprocess.TimeoutExpired:
        return None, f"grading took longer than {timeout:.0f} s"
    except (ValueError, IndexError) as e:
        return None, f"grading printed no result ({e})"


def grade_job(sub: Path, key: str, assignments: list[Assignment], out: Path,
              policy: SandboxPolicy, run: Callable = run_job) -> Outcome:
    """Grade one student with `run` (run_job's signature: a child process here, or a Dask
    worker); store results.json, then grading.json (the key), each atomically, then append the
    run log line."""
    student = student_name(sub)
    work = out / ".work" / student
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        results, error = run(sub, [a.name for a in assignments], policy, work.parent,
                             job_timeout(assignments))
    finally:
        shutil.rmtree(work, ignore_errors=True)  # stays empty; .work is cleared at the end
    if error is not None:
        return Outcome(student, None, error=error)
    target = out / student
    target.mkdir(parents=True, exist_ok=True)
    instructor = results.pop(INSTRUCTOR_KEY, None) or {}  # hidden hints: never in results.json
    write_atomic(target / "results.json", utf8_json(results) + b"\n")
    write_atomic(target / "instructor.json", utf8_json(instructor) + b"\n")
    results[INSTRUCTOR_KEY] = instructor  # in memory, for the class report's misconceptions
    seconds = round(time.monotonic() - started, 3)
    problems = rejection(results)
    meta = {"key": key, "student": student, "hash": submission_hash(sub),
            "score": results["score"], "max_score": results["max_score"], "time": seconds,
            "problems": problems}
    write_atomic(target / "grading.json", (json.dumps(meta) + "\n").encode())
    with open(out / "run_log.jsonl", "a") as log:
        log.write(json.dumps({k: meta[k] for k in ("student", "hash", "score", "time",
                                                   "problems")}) + "\n")
        log.flush()
        os.fsync(log.fileno())
    return Outcome(student, results, problems=problems)
