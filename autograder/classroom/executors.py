"""Where a bulk run's per-submission jobs execute: an executor takes one `GradeJob`
(grading/job.py: the submission, its assignments, the policy with its limits, the placement,
the course, the temporary folder, the timeout) and returns (results.json, None) or (None, a
one-line error). `run_job` is the local executor (a child process on this machine, the job
on its stdin); `dask_executor.DaskRun` ships the same job to a Dask cluster. A new executor is
one module with one such callable.

Imports the engine's leaf modules only (never bulk.py, which drives the executors).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Protocol

from ..assignments import Assignment
from ..grading.job import REFERENCE_TIMEOUT_SCALE, GradeJob

ENGINE = Path(__file__).resolve().parent.parent
# a grading's runs, each within its assignment's run limit (backends/base.py: run_limit): the
# reference's on the draw (REFERENCE_TIMEOUT_SCALE limits), the public tests, their feedback
# run, the hidden tests and their hints run (grading/pipeline.py)
RUN_LIMITS_PER_GRADING = REFERENCE_TIMEOUT_SCALE + 4
JOB_TIMEOUT_FACTOR = 1.5  # a job may take this many times the sum of its runs' limits


class BulkError(Exception):
    """The bulk run cannot start (e.g. another run holds the output folder)."""


class Executor(Protocol):
    """Runs one submission's grading job somewhere; never raises for what the job does."""

    def __call__(self, job: GradeJob) -> tuple[dict | None, str | None]: ...


def course_version(assignments: list[Assignment]) -> str:
    """sha256 over the assignments' tests and goldens, their reference solutions (a grading's
    expected values are the reference's, computed on its draw) and the engine's source."""
    h = hashlib.sha256()
    files = [p for a in assignments for p in sorted(a.tests_dir.rglob("*"))]
    files += [p for a in assignments for p in sorted((a.solutions / a.package).rglob("*"))]
    files += sorted(ENGINE.rglob("*.py"))
    for p in files:
        if p.is_file() and "__pycache__" not in p.parts:
            h.update(str(p).encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def job_timeout(assignments: list[Assignment]) -> float:
    """A bulk job's wall limit in seconds: a last resort past every run's own limit."""
    return JOB_TIMEOUT_FACTOR * sum(RUN_LIMITS_PER_GRADING * a.run_timeout
                                    for a in assignments) + 60


def run_job(job: GradeJob) -> tuple[dict | None, str | None]:
    """Run `python -m autograder.classroom.job` on `job` (its JSON on stdin: everything it
    grades from, its course and its temporary folder included) in a child process that dies
    with this one: (results.json, None), or (None, a one-line error)."""
    cmd = [sys.executable, "-m", "autograder.classroom.job", "--parent", str(os.getpid())]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=job.timeout,
                              input=json.dumps(job.to_json()))
        if proc.returncode != 0:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return None, f"grading failed: {tail}"
        return json.loads(proc.stdout.strip().splitlines()[-1]), None
    except subprocess.TimeoutExpired:
        return None, f"grading took longer than {job.timeout:.0f} s"
    except (ValueError, IndexError) as e:
        return None, f"grading printed no result ({e})"
