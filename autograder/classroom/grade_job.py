"""One student's grading job as one immutable object: `GradeJob`, made once where a bulk run
starts and shipped as is (`to_json()`, plain JSON data) to whichever executor runs it: the local
job process (`python -m autograder.classroom.job`, on its stdin) or a Dask worker
(dask_executor.worker_job), which rebuild it with `from_json` and grade from it alone.

`key()` is the resume key: the sha256 of the canonical JSON of exactly the fields that can
change a grade (`KEYED`); the others (`UNKEYED`: where the submission and the course lie,
where temporary files go) never do. A student is skipped only when the stored key equals the
new job's key (bulk.py).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields

from ..assignments import VISIBILITIES
from ..backends import Placement
from ..sandbox import SandboxPolicy

# what a grade depends on: the submission's content, the course (tests, goldens, engine), and
# how and where it is graded; a new field is listed in exactly one of the two tuples
KEYED = ("submission_hash", "course_version", "assignments", "visibilities", "policy",
         "placement", "timeout")
UNKEYED = ("submission", "course_root", "work")


@dataclass(frozen=True)
class GradeJob:
    """One submission graded on `assignments` (their `visibilities`), under `policy` (mode,
    every limit, the layers treated as missing) with children on `placement`, within `timeout`
    seconds of wall time for the whole job.

    `submission` is its absolute path and `submission_hash` its content hash
    (submissions.submission_hash); `course_root` the course the job loads its assignments from
    and `course_version` that course's hash (executors.course_version); `work` the run's shared
    temporary folder (the job's TMPDIR)."""

    submission: str
    submission_hash: str
    assignments: tuple[str, ...]
    policy: SandboxPolicy
    placement: Placement
    timeout: float
    course_root: str
    course_version: str
    work: str
    visibilities: tuple[str, ...] = VISIBILITIES

    def __post_init__(self) -> None:  # one representation per value: 600 and 600.0 key alike
        object.__setattr__(self, "timeout", float(self.timeout))
        object.__setattr__(self, "assignments", tuple(self.assignments))
        object.__setattr__(self, "visibilities", tuple(self.visibilities))

    def to_json(self) -> dict:
        """Plain JSON data; `from_json` rebuilds an equal job."""
        return {"submission": self.submission, "submission_hash": self.submission_hash,
                "assignments": list(self.assignments), "policy": self.policy.to_json(),
                "placement": self.placement.to_json(), "timeout": self.timeout,
                "course_root": self.course_root, "course_version": self.course_version,
                "work": self.work, "visibilities": list(self.visibilities)}

    @classmethod
    def from_json(cls, data: dict) -> GradeJob:
        """The job `to_json` wrote (KeyError, TypeError or ValueError on anything else)."""
        if set(data) != {f.name for f in fields(cls)}:
            raise ValueError(f"a grading job has the fields {sorted(KEYED + UNKEYED)}, "
                             f"not {sorted(data)}")
        return cls(str(data["submission"]), str(data["submission_hash"]),
                   tuple(str(a) for a in data["assignments"]),
                   SandboxPolicy.from_json(data["policy"]),
                   Placement.from_json(data["placement"]), float(data["timeout"]),
                   str(data["course_root"]), str(data["course_version"]), str(data["work"]),
                   tuple(str(v) for v in data["visibilities"]))

    def key(self) -> str:
        """sha256 of the canonical JSON (sorted keys, no spaces) of the KEYED fields."""
        data = self.to_json()
        canonical = json.dumps({k: data[k] for k in KEYED}, sort_keys=True,
                               separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(canonical.encode()).hexdigest()
