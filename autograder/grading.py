"""The grading pipeline: intake -> sandboxed run -> trusted check. Produces AssignmentGrade.

Everything here runs in the trusted parent; student code runs only in runner's child.
"""

from __future__ import annotations

import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .assignments import VISIBILITIES, Assignment
from .backends import get_backend
from .compare import judge, matching_hints
from .found_instead import found_instead
from .harness.plaindata import PlainDataError, decode
from .intake import find_package, stage, staging_dir
from .runner import RunRequest, RunResult, TestRecord
from .sandbox import SandboxPolicy
from .store import GoldenStore, TestPlan, TestSpec, load_inputs, load_stores

HIDDEN_FAILED = "Hidden test failed."


@dataclass
class TestResult:
    assignment: str
    id: str
    file: str
    visibility: str
    max_points: float
    passed: bool
    message: str = ""  # what the student may see
    hints: list[str] = field(default_factory=list)

    @property
    def points(self) -> float:
        return self.max_points if self.passed else 0.0


@dataclass
class AssignmentGrade:
    assignment: Assignment
    tests: list[TestResult]
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    run: RunResult | None = None

    @property
    def score(self) -> float:
        return sum(t.points for t in self.tests)

    @property
    def max_score(self) -> float:
        return sum(t.max_points for t in self.tests)


def grade_submission_root(assignment: Assignment, root: Path,
                          visibilities: tuple[str, ...] = VISIBILITIES,
                          policy: SandboxPolicy | None = None) -> AssignmentGrade:
    """Grade the assignment's package found in `root` (at its root or one folder down)."""
    policy = policy or SandboxPolicy.create()
    started = time.monotonic()
    package_dir = find_package(root, assignment.package)
    if package_dir is None:
        problem = (f"no '{assignment.package}' package found (expected a folder "
                   f"'{assignment.package}/' with __init__.py, at the top or one folder down)")
        problem += "; " + (found_instead(root, assignment.package) or "found nothing like it")
        return all_failed(assignment, visibilities, [problem], [], started)
    work = staging_dir()
    try:
        staged = stage(package_dir, assignment, work)
        if staged.problems:
            return all_failed(assignment, visibilities, staged.problems, staged.notes, started)
        grade = grade_staged(assignment, work, visibilities, policy)
        grade.notes[:0] = staged.notes
        grade.wall_s = time.monotonic() - started
        return grade
    finally:
        shutil.rmtree(work, ignore_errors=True)


def grade_staged(assignment: Assignment, impl_root: Path,
                 visibilities: tuple[str, ...] = VISIBILITIES,
                 policy: SandboxPolicy | None = None) -> AssignmentGrade:
    """Run and judge an implementation already staged at impl_root/<package>."""
    policy = policy or SandboxPolicy.create()
    started = time.monotonic()
    stores = load_stores(assignment, visibilities)
    # the trusted checks module may import heavy oracles (scipy, torch): load it meanwhile
    checks_loader = threading.Thread(target=lambda: assignment.checks, daemon=True)
    checks_loader.start()
    request = RunRequest(assignment, impl_root, "replay", TestPlan.from_stores(stores), policy)
    result = get_backend(policy.backend).run(request)
    checks_loader.join()
    tests = []
    for vis, store in stores.items():
        inputs = load_inputs(assignment, vis)
        for test_id, spec in store.tests.items():
            tests.append(_judge_test(assignment, store, spec, inputs.get(test_id),
                                     result.records.get(test_id, TestRecord(test_id)),
                                     bool(result.collect_errors)))
    return AssignmentGrade(assignment, tests, problems=_dedupe(result.collect_errors),
                           wall_s=time.monotonic() - started, run=result)


def _judge_test(assignment: Assignment, store: GoldenStore, spec: TestSpec, inputs_data,
                rec: TestRecord, collect_failed: bool = False) -> TestResult:
    vis, test_id = store.visibility, spec.id
    result = TestResult(assignment.name, test_id, spec.file, vis, spec.points, False)
    try:
        inputs = decode(inputs_data) if inputs_data is not None else None
    except PlainDataError:
        inputs = None
    observed = {}
    for obs in rec.obs:
        if isinstance(obs, dict) and isinstance(obs.get("name"), str):
            observed.setdefault(obs["name"], obs.get("value"))
    details: list[str] = []
    if rec.status == "not_run" and collect_failed:
        details.append("not run: its test file could not be loaded (see the problem above: "
                       "usually your package raised while being imported)")
    elif rec.status == "not_run":
        details.append("not run (the test process stopped before reaching it)")
    elif rec.status != "ended":
        details.append(rec.error or rec.status)
    elif rec.outcome != "passed" and rec.error_type == "NotImplementedError":
        details.append(f"not implemented yet ({rec.error})")
    elif rec.outcome != "passed":
        details.append(f"raised {rec.error}" if rec.error else "failed")
    all_match, missing = True, []
    for name, ospec in spec.observations.items():
        if name not in observed:
            all_match = False
            missing.append(name)
            continue
        message = judge(ospec, observed[name], inputs, assignment.checks, name)
        if message is None:
            continue
        all_match = False
        details.append(f"{name}: {message}")
        values = store.mutant_values(test_id, name)
        for hint in matching_hints(ospec, observed[name], values, inputs, assignment.checks,
                                   name):
            if hint not in result.hints:
                result.hints.append(hint)
    if missing and rec.status == "ended" and rec.outcome == "passed":
        details.append(f"{len(missing)} observation(s) not recorded, e.g. {missing[0]}"
                       if details else f"not recorded: {', '.join(missing[:5])}")
    result.passed = rec.status == "ended" and rec.outcome == "passed" and all_match
    if not result.passed:
        result.message = _student_message(vis, rec, details, collect_failed)
    return result


def _dedupe(problems: list[str]) -> list[str]:
    """Collection errors with the same cause (e.g. the package raising on import, once per
    test file) are shown once."""
    seen: dict[str, list[str]] = {}
    for p in problems:
        lines = [ln for ln in p.strip().splitlines() if ln.strip()]
        seen.setdefault(lines[-1] if lines else p, []).append(p)
    return [group[0] + (f"\n(the same error in {len(group) - 1} more test file(s))"
                        if len(group) > 1 else "") for group in seen.values()]


def _student_message(vis: str, rec: TestRecord, details: list[str],
                     collect_failed: bool = False) -> str:
    """Public tests show what went wrong; hidden tests only say how they failed."""
    if vis == "public":
        shown = details[:6] + ([f"... and {len(details) - 6} more"] if len(details) > 6 else [])
        return "\n".join(shown)
    if rec.status == "timeout":
        return f"{HIDDEN_FAILED} It timed out."
    if rec.status == "not_run" and collect_failed:
        return f"{HIDDEN_FAILED} It could not run (see the problem above)."
    if rec.status in ("crashed", "not_run"):
        return f"{HIDDEN_FAILED} The test process died."
    if rec.outcome != "passed":
        return f"{HIDDEN_FAILED} It raised {rec.error_type or 'an exception'}."
    return f"{HIDDEN_FAILED} An output did not match."


def all_failed(assignment: Assignment, visibilities: tuple[str, ...], problems: list[str],
               notes: list[str], started: float) -> AssignmentGrade:
    """Every test of the assignment failed, not run, for the first of `problems`."""
    tests = []
    for vis, store in load_stores(assignment, visibilities).items():
        for test_id, spec in store.tests.items():
            tests.append(TestResult(assignment.name, test_id, spec.file, vis, spec.points,
                                    False, "not run: " + problems[0]))
    return AssignmentGrade(assignment, tests, problems, notes, time.monotonic() - started)
