"""The grading service: the one entry point that the CLI, the demo, bulk grading and every
backend's caller use. A submission (folder or zip) goes through intake -> sandboxed run (on the
policy's backend) -> trusted check, and comes back as a typed `Results`.

    from autograder.grading import service
    from autograder.sandbox import SandboxPolicy
    results = service.grade(Path("alice.zip"), policy=SandboxPolicy.create("auto"))
    results.score, results.max_score, results.gradescope()   # results.json's content
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..assignments import VISIBILITIES, Assignment, AssignmentError, discover, load
from ..backends import BackendError, Placement, get_backend
from ..sandbox import SandboxPolicy, report_lines, require
from .found_instead import found_instead
from .intake import IntakeError, find_package, open_submission, staging_dir
from .judge import AssignmentGrade, all_failed, task_numbers
from .pipeline import grade_submission_root
from .report import instructor_json, results_json


@dataclass
class Results:
    """One submission's grade: per assignment, plus what concerns the submission as a whole
    (`problems`: rejected zip, no package found) and the isolation `warnings` of this run."""

    grades: list[AssignmentGrade]
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    execution_time: float = 0.0

    @property
    def score(self) -> float:
        return sum(g.score for g in self.grades)

    @property
    def max_score(self) -> float:
        return sum(g.max_score for g in self.grades)

    def gradescope(self) -> dict:
        """results.json in Gradescope's schema."""
        return results_json(self.grades, self.execution_time, self.warnings + self.problems)

    def instructor(self) -> dict:
        """What only the instructor sees (OUT/instructor.json): hints of hidden tests too."""
        return instructor_json(self.grades)


def prepare(policy: SandboxPolicy, placement: Placement | None = None) -> list[str]:
    """Check that the policy can run here on the placement's backend (IsolationError under
    strict isolation without full isolation; BackendError for a backend that cannot run);
    returns the loud warning lines."""
    placement = placement or Placement()
    require(policy)
    problem = get_backend(placement.backend).problem()
    if problem:
        raise BackendError(f"backend {placement.backend!r} cannot run here: {problem}")
    return report_lines(policy) if placement.backend == "host" else []


def grade(submission: Path, assignments: list[str] | None = None,
          policy: SandboxPolicy | None = None,
          visibilities: tuple[str, ...] = VISIBILITIES,
          placement: Placement | None = None) -> Results:
    """Grade every assignment package found in `submission` (or only `assignments`), its
    children on the `placement`'s backend (default: the host)."""
    started = time.monotonic()
    policy = policy or SandboxPolicy.create()
    warnings = prepare(policy, placement)
    work = staging_dir()
    problems: list[str] = []
    grades: list[AssignmentGrade] = []
    try:
        try:
            root = open_submission(Path(submission), work)
        except IntakeError as e:
            root, problems = None, [f"submission rejected: {e}"]
        chosen = _assignments(root, assignments, problems)
        for assignment in chosen:
            if root is None:
                grades.append(all_failed(assignment, visibilities, problems, [], started))
            else:
                grades.append(grade_submission_root(assignment, root, visibilities, policy,
                                                    placement=placement))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return Results(grades, problems, warnings, time.monotonic() - started)


def check(assignment: str | Assignment, impl: Path | None = None,
          policy: SandboxPolicy | None = None, task: int | None = None,
          placement: Placement | None = None) -> Results:
    """The public tests (of one handout `task`, if given) on a local implementation folder
    holding the package (default: the starter)."""
    started = time.monotonic()
    policy = policy or SandboxPolicy.create()
    warnings = prepare(policy, placement)
    a = load(assignment) if isinstance(assignment, str) else assignment
    if task is not None and task not in task_numbers(a):
        known = ", ".join(str(n) for n in task_numbers(a)) or "none"
        raise AssignmentError(f"{a.name} has no task {task} (its tasks: {known})")
    root = Path(impl).resolve() if impl else a.starter
    grade_ = grade_submission_root(a, root, ("public",), policy, task, placement=placement)
    return Results([grade_], [], warnings, time.monotonic() - started)


def _assignments(root: Path | None, names: list[str] | None,
                 problems: list[str]) -> list[Assignment]:
    if names:
        return [load(n) for n in names]
    if root is None:
        return []
    found = [a for a in discover() if find_package(root, a.package)]
    graded = {a.name for a in found}
    for a in discover():  # a package meant but not usable: say so, grade nothing for it
        instead = None if a.name in graded else found_instead(root, a.package)
        if instead:
            problems.append(f"{a.name}: not graded: no '{a.package}' package; {instead}")
    if not found:
        problems.append("no assignment package found in the submission (expected one of: "
                        + ", ".join(a.package for a in discover()) + ")")
    return found
