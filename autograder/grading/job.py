"""One grading job: everything a grading or a check needs, as one validated, serialisable value
(runc's one `Config`, PrairieLearn's one validated job).

Every entry point builds one and hands it to `pipeline.grade(job)`: the CLI's `grade` and
`check` (and watch mode), the demo, bulk (shipped as JSON to its job processes and Dask
workers), Gradescope's run_autograder, nbgrader's autograde and the course self-test. No
grading input travels any other way: no environment variable, no module state.

`mode` says what the job is: GRADE judges the tests of `visibilities` on a draw of the
submission's own (grading/draws.py: single-use secrets); CHECK judges the public tests on the
published inputs, at once, as a student's own check does. `key()` is bulk's resume key: the
sha256 of the canonical JSON of exactly the fields that can change a grade (`KEYED`); the
others (`UNKEYED`: where the submission, the course and temporary files lie, how many
assignments run at once) never do.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields
from enum import StrEnum
from pathlib import Path

from ..assignments import VISIBILITIES, Assignment, Visibility
from ..backends import Placement
from ..backends.base import RunMode, RunRequest, TestPlan
from ..sandbox import SandboxPolicy

# the reference's run on a draw gets this many times each test's limit: on a loaded machine it
# must finish (a test it does not finish is unavailable in that grading)
REFERENCE_TIMEOUT_SCALE = 3.0



class JobMode(StrEnum):
    """What a job does (a StrEnum: the same string in the job's JSON and its key)."""

    GRADE = "grade"  # a grading: the tests on a draw of its own, intake's problems reported
    CHECK = "check"  # a student's check: one assignment's public tests on the published inputs


MODES = tuple(JobMode)
# what a grade depends on: the submission's content, the course (tests, goldens, engine), and
# how and where it is graded; a new field is listed in exactly one of the two tuples
KEYED = ("submission_hash", "course_version", "mode", "assignments", "task", "ids",
         "visibilities", "policy", "placement", "timeout")
UNKEYED = ("submission", "course_root", "work", "parallel")


class JobError(ValueError):
    """A job that cannot be: an unknown mode, a check of hidden tests, a bad number."""


@dataclass(frozen=True)
class GradeJob:
    """One submission (a folder or a .zip holding assignment packages, at its root or one
    folder down) graded or checked on `assignments` (empty: every package found), only
    handout `task` and only the tests `ids` when given, under `policy` (isolation and every
    limit) with children on `placement` (backend, GPUs), `parallel` assignments at once,
    within `timeout` seconds of wall time for the whole job (enforced by whoever runs the job
    in another process: bulk's executors; None: the assignments' own limits only;
    `visibilities`: the tests' visibilities, by default the mode's: public for a
    check, public and hidden for a grading). `course_root` is the course the assignments come from; `work` where its
    temporary files go (None: the system's). `submission_hash` and `course_version` are
    bulk's content hashes (submissions.submission_hash, executors.course_version) for its
    resume key, empty elsewhere."""

    submission: Path
    course_root: Path
    mode: JobMode = JobMode.GRADE
    assignments: tuple[str, ...] = ()
    task: int | None = None
    ids: frozenset[str] | None = None
    visibilities: tuple[str, ...] | None = None  # None: the mode's (check: public only)
    policy: SandboxPolicy = field(default_factory=SandboxPolicy)
    placement: Placement = field(default_factory=Placement)
    parallel: int = 1
    work: Path | None = None
    timeout: float | None = None
    submission_hash: str = ""
    course_version: str = ""

    def __post_init__(self) -> None:
        """Validated, one representation per value (600 and 600.0 key alike)."""
        put = object.__setattr__
        put(self, "submission", Path(self.submission))
        put(self, "course_root", Path(self.course_root))
        put(self, "work", None if self.work is None else Path(self.work))
        put(self, "assignments", tuple(str(a) for a in self.assignments))
        chosen = self.visibilities if self.visibilities is not None else \
            (Visibility.PUBLIC,) if self.mode == JobMode.CHECK else VISIBILITIES
        put(self, "visibilities", tuple(Visibility(v) if v in VISIBILITIES else v
                                        for v in chosen))
        if self.ids is not None:
            put(self, "ids", frozenset(str(i) for i in self.ids))
        if self.timeout is not None:
            put(self, "timeout", float(self.timeout))
        if self.mode not in MODES:
            raise JobError(f"a job's mode is one of {', '.join(MODES)}, not {self.mode!r}")
        put(self, "mode", JobMode(self.mode))
        if not self.visibilities or set(self.visibilities) - set(VISIBILITIES):
            raise JobError(f"visibilities must be some of {', '.join(VISIBILITIES)}, not "
                           f"{', '.join(map(str, self.visibilities))}")
        if self.mode == JobMode.CHECK and self.visibilities != (Visibility.PUBLIC,):
            raise JobError("a check runs the public tests only")
        if self.mode == JobMode.CHECK and len(self.assignments) != 1:
            raise JobError("a check names exactly one assignment")
        if self.task is not None and (type(self.task) is not int or self.task < 0):
            raise JobError(f"a task is a handout task's number, not {self.task!r}")
        if type(self.parallel) is not int or self.parallel < 1:
            raise JobError(f"parallel is a whole number >= 1, not {self.parallel!r}")
        if self.timeout is not None and not self.timeout > 0:
            raise JobError(f"a job's timeout is a positive number of seconds, not "
                           f"{self.timeout!r}")

    def to_json(self) -> dict:
        """Plain JSON data (paths as strings, ids sorted); `from_json` rebuilds an equal job."""
        return {"submission": str(self.submission), "course_root": str(self.course_root),
                "mode": self.mode, "assignments": list(self.assignments), "task": self.task,
                "ids": None if self.ids is None else sorted(self.ids),
                "visibilities": list(self.visibilities), "policy": self.policy.to_json(),
                "placement": self.placement.to_json(), "parallel": self.parallel,
                "work": None if self.work is None else str(self.work),
                "timeout": self.timeout, "submission_hash": self.submission_hash,
                "course_version": self.course_version}

    @classmethod
    def from_json(cls, data: dict) -> GradeJob:
        """The job `to_json` wrote (JobError, KeyError or TypeError on anything else)."""
        if not isinstance(data, dict) or set(data) != {f.name for f in fields(cls)}:
            raise JobError(f"a grading job has the fields {sorted(KEYED + UNKEYED)}")
        return cls(**{**data, "policy": SandboxPolicy.from_json(data["policy"]),
                      "placement": Placement.from_json(data["placement"]),
                      "ids": None if data["ids"] is None else frozenset(data["ids"])})

    def run_request(self, assignment: Assignment, impl_root: Path, plan: TestPlan,
                    drawn: Path | None = None) -> RunRequest:
        """A run of the staged package in `impl_root` on `plan`'s tests under the job's policy:
        on a draw's inputs (`drawn`: the folder holding them; redacted: nothing of the run
        reaches the student) or on the published ones."""
        return RunRequest(assignment, impl_root, RunMode.REPLAY, plan, self.policy,
                          inputs_base=drawn, graded_public=drawn is not None)

    def reference_request(self, assignment: Assignment, plan: TestPlan,
                          salt: str) -> RunRequest:
        """The reference solution's run on a draw (grading/draws.py): gen mode on `salt`,
        trusted, with REFERENCE_TIMEOUT_SCALE times each limit."""
        return RunRequest(assignment, assignment.solutions, RunMode.GEN, plan, self.policy,
                          timeout_scale=REFERENCE_TIMEOUT_SCALE, trusted=True, seed_salt=salt)

    def key(self) -> str:
        """sha256 of the canonical JSON (sorted keys, no spaces) of the KEYED fields."""
        data = self.to_json()
        canonical = json.dumps({k: data[k] for k in KEYED}, sort_keys=True,
                               separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(canonical.encode()).hexdigest()
