"""One bulk-grading job in a child process: `python -m autograder.classroom.job [--parent PID]`
reads one `GradeJob` (grade_job.py) as JSON on stdin and prints that submission's results.json
on stdout (with its instructor-only record under results.INSTRUCTOR_KEY), graded from the job
alone: its assignments and visibilities, its policy with every limit, its placement. The child
dies with its parent (PR_SET_PDEATHSIG), so a killed bulk run leaves no grading process behind;
its temporary files go where the parent's TMPDIR points."""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import signal
import sys
from pathlib import Path

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.classroom.job")
    parser.add_argument("--parent", type=int, default=os.getppid())
    args = parser.parse_args(argv)
    die_with_parent(args.parent)
    from ..grading import service
    from ..grading.results import INSTRUCTOR_KEY
    from ..grading.safe_text import clean
    from .grade_job import GradeJob

    job = GradeJob.from_json(json.loads(sys.stdin.read()))
    with open(os.devnull, "rb") as null:  # the sandboxed children read nothing of ours
        os.dup2(null.fileno(), 0)
    results = service.grade(Path(job.submission), list(job.assignments) or None, job.policy,
                            job.visibilities, placement=job.placement)
    # the instructor-only record rides along; bulk.grade_job splits it off into instructor.json
    data = {**results.gradescope(), INSTRUCTOR_KEY: results.instructor()}
    sys.stdout.write(json.dumps(clean(data)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
