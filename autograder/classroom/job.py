"""Bulk-grading jobs in a child process: `python -m autograder.classroom.job [--parent PID]` reads
one `GradeJob` (grading/job.py) as JSON on stdin and prints that submission's results.json on
stdout; with `--serve`, one job per line, one answer line each (classroom/workers.py) (with its
instructor-only record under results.INSTRUCTOR_KEY), graded from the job alone: its
assignments and visibilities, its policy with every limit, its placement. The child dies with
its parent (PR_SET_PDEATHSIG), so a killed bulk run leaves no grading process behind; its
temporary files go to the job's `work` folder."""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import signal
import sys
import tempfile

PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux); exit at once if the
    parent is already gone."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)


def graded(job) -> dict:
    """The job's results.json, with the instructor-only record under INSTRUCTOR_KEY (bulk's
    grade_job splits it off into instructor.json)."""
    from ..grading import pipeline
    from ..grading.results import INSTRUCTOR_KEY
    from ..grading.safe_text import clean

    if job.work is not None:  # this process's temporary files go where its jobs say
        tempfile.tempdir = str(job.work)
    results = pipeline.grade(job)
    return clean({**results.gradescope(), INSTRUCTOR_KEY: results.instructor()})


def serve(jobs, answers) -> int:
    """`--serve` (classroom/workers.py): one GradeJob per line of `jobs`, one answer line each
    on `answers`, until `jobs` ends; a job that raises is answered with its error and ends the
    worker (its state is not trusted after that)."""
    from ..grading.job import GradeJob

    for line in jobs:
        try:
            answer = {"results": graded(GradeJob.from_json(json.loads(line)))}
        except Exception as e:  # noqa: BLE001 - that student's error, reported, never a crash
            first = str(e).splitlines()[0] if str(e) else ""
            answers.write(json.dumps({"error": f"grading failed: {type(e).__name__}: "
                                               f"{first[:300]}"}) + "\n")
            answers.flush()
            return 1
        answers.write(json.dumps(answer) + "\n")
        answers.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.classroom.job")
    parser.add_argument("--parent", type=int, default=os.getppid())
    parser.add_argument("--serve", action="store_true",
                        help="grade one GradeJob per line of stdin, one answer line each")
    args = parser.parse_args(argv)
    die_with_parent(args.parent)
    from ..grading.job import GradeJob

    jobs = os.fdopen(os.dup(0), "r", encoding="utf-8")
    with open(os.devnull, "rb") as null:  # the sandboxed children read nothing of ours
        os.dup2(null.fileno(), 0)
    if args.serve:
        answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
        os.dup2(2, 1)  # what anything else prints goes to stderr, never into the answers
        return serve(jobs, answers)
    job = GradeJob.from_json(json.loads(jobs.read()))
    sys.stdout.write(json.dumps(graded(job)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
