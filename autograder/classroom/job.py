"""One bulk-grading job in a child process: `python -m autograder.classroom.job SUBMISSION
[--assignment A ...] [--isolation M] [--backend B] [--gpus G]` prints that submission's results.json on
stdout (with its instructor-only record under results.INSTRUCTOR_KEY). The child dies with its
parent (PR_SET_PDEATHSIG), so a killed bulk run leaves no grading process behind; its temporary
files go where the parent's TMPDIR points."""

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
    parser.add_argument("submission")
    parser.add_argument("--assignment", action="append", default=[])
    parser.add_argument("--isolation")
    parser.add_argument("--backend")
    parser.add_argument("--gpus")
    parser.add_argument("--parent", type=int, default=os.getppid())
    args = parser.parse_args(argv)
    die_with_parent(args.parent)
    from ..backends import Placement
    from ..grading import service
    from ..grading.results import INSTRUCTOR_KEY
    from ..grading.safe_text import clean
    from ..sandbox import SandboxPolicy

    policy = SandboxPolicy.create(args.isolation)
    results = service.grade(Path(args.submission), args.assignment or None, policy,
                            placement=Placement(args.backend or "host", args.gpus))
    # the instructor-only record rides along; bulk.grade_job splits it off into instructor.json
    data = {**results.gradescope(), INSTRUCTOR_KEY: results.instructor()}
    sys.stdout.write(json.dumps(clean(data)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
