"""The grading pipeline of one submission: intake -> sandboxed runs in order -> judging.
Produces an AssignmentGrade.

`grade_submission_root` finds the assignment's package in a submission folder, stages it
(intake.py) and calls `grade_staged`, which runs the tests on the placement's backend in this
order: the public tests (in a graded run, on the graded inputs, redacted), those that failed
there once more on the published inputs (their messages are what the student sees), then the
hidden tests; no child whose output is shown runs after a hidden child. Each run is judged by
judge.py. Everything here runs in the trusted parent; student code runs only in runner's child.
"""

from __future__ import annotations

import shutil
import threading
import time
from dataclasses import replace
from pathlib import Path

from .. import backends
from ..assignments import GRADED_INPUTS, VISIBILITIES, Assignment
from ..backends.base import Placement, RunRequest, RunResult, TestPlan, TestRecord
from ..sandbox import SandboxPolicy
from .cause_text import render
from .found_instead import found_instead
from .intake import find_package, stage, staging_dir
from .judge import AssignmentGrade, TestResult, all_failed, dedupe, judge_run, task_stores
from .store import GoldenStore, load_inputs, load_store


def grade_submission_root(assignment: Assignment, root: Path,
                          visibilities: tuple[str, ...] = VISIBILITIES,
                          policy: SandboxPolicy | None = None,
                          task: int | None = None,
                          ids: frozenset[str] | None = None,
                          placement: Placement | None = None) -> AssignmentGrade:
    """Grade the assignment's package found in `root` (at its root or one folder down); with
    `task`, only that handout task's tests; with `ids`, only the tests of those ids; on the
    `placement`'s backend (default: the host)."""
    policy = policy or SandboxPolicy.create()
    started = time.monotonic()
    try:
        package_dir = find_package(root, assignment.package)
    except (OSError, ValueError) as e:
        problem = f"the submission's folders cannot be read ({type(e).__name__}: {e})"
        return all_failed(assignment, visibilities, [problem[:300]], [], started, task, ids)
    if package_dir is None:
        problem = (f"no '{assignment.package}' package found (expected a folder "
                   f"'{assignment.package}/' with __init__.py, at the top or one folder down)")
        problem += "; " + (found_instead(root, assignment.package) or "found nothing like it")
        return all_failed(assignment, visibilities, [problem], [], started, task, ids)
    work = staging_dir()
    try:
        staged = stage(package_dir, assignment, work)
        staged.notes[:0] = _also_found(root, assignment.package, package_dir)
        if staged.problems:
            return all_failed(assignment, visibilities, staged.problems, staged.notes, started,
                              task, ids)
        grade = grade_staged(assignment, work, visibilities, policy, task, ids, placement)
        grade.notes[:0] = staged.notes
        grade.wall_s = time.monotonic() - started
        return grade
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _also_found(root: Path, package: str, chosen: Path) -> list[str]:
    """A note naming the other copies of the package (one folder down) that are not graded."""
    try:
        others = [p for p in sorted(root.iterdir()) if p.is_dir() and not p.is_symlink()
                  and (p / package / "__init__.py").is_file() and p / package != chosen]
    except OSError:
        return []
    if not others:
        return []
    shown = ", ".join(f"{p.relative_to(root).as_posix()}/{package}/" for p in others[:3])
    graded = chosen.relative_to(root).as_posix() if chosen != root else "."
    return [f"graded {graded}/ (also found {shown}: not graded)"]


def grade_staged(assignment: Assignment, impl_root: Path,
                 visibilities: tuple[str, ...] = VISIBILITIES,
                 policy: SandboxPolicy | None = None,
                 task: int | None = None,
                 ids: frozenset[str] | None = None,
                 placement: Placement | None = None,
                 graded_inputs: bool | None = None) -> AssignmentGrade:
    """Run and judge an implementation already staged at impl_root/<package> (with `task`:
    only that task's tests; with `ids`: only those tests).

    `graded_inputs` (default: whether the hidden tests run, i.e. a graded run, not a check):
    the public tests are judged on the graded input set (SPEC §3: a point is earned only on
    inputs the student never had), and what their child printed there is never shown. Each
    public test that fails there runs again on the published inputs, for its message: the
    failure the student's own check shows, or that it passes only on the published inputs."""
    policy = policy or SandboxPolicy.create()
    started = time.monotonic()
    graded = ("hidden" in visibilities) if graded_inputs is None else graded_inputs
    stores = task_stores(assignment, visibilities, task, ids)
    judged = dict(stores)
    if graded and "public" in stores:
        judged["public"] = _restricted(load_store(assignment, GRADED_INPUTS),
                                       set(stores["public"].tests))
    # the trusted checks module may import heavy oracles (scipy, torch): load it meanwhile
    checks_loader = threading.Thread(target=lambda: assignment.checks, daemon=True)
    checks_loader.start()

    def run(part: dict[str, GoldenStore], graded_public: bool = False) -> RunResult:
        return backends.run(RunRequest(assignment, impl_root, "replay",
                                       TestPlan.from_stores(part), policy,
                                       graded_public=graded_public), placement)

    # A graded run goes in this order: the public tests on the graded inputs (redacted), those
    # that failed there once more on the published inputs (their messages are shown), then
    # the hidden tests: no child whose output is shown runs after a hidden child.
    first = {v: st for v, st in judged.items() if not graded or v == "public"}
    runs = [run(first, graded)] if first else []
    if graded and runs and runs[0].records and all(
            r.status == "refused" for r in runs[0].records.values()):
        # the graded goldens cannot be kept from the child here (the hidden run says why):
        # the public tests are judged on the published inputs, as a check judges them
        graded, first = False, {"public": stores["public"]}
        runs = [run(first)]
    checks_loader.join()
    tests = _judge_stores(assignment, first, runs[0], graded) if runs else []
    problems = [render(e) for r in runs for e in r.collect_errors]
    failing = {t.id for t in tests if t.visibility == "public" and not t.passed
               and runs[0].records.get(t.id, TestRecord(t.id)).status != "refused"}
    if graded and failing:
        published = _restricted(stores["public"], failing)
        shown = run({"public": published})
        feedback = {t.id: t for t in _judge_stores(assignment, {"public": published}, shown,
                                                   False)}
        tests = [_with_feedback(t, feedback.get(t.id)) if t.visibility == "public" else t
                 for t in tests]
        problems = [render(e) for e in shown.collect_errors] + problems
    if "hidden" in judged and "hidden" not in first:
        # a package that does not import fails the hidden tests the same way: not started
        hidden = RunResult({}, [], "", 0, 0.0) if runs and runs[0].package_error \
            else run({"hidden": judged["hidden"]})
        runs.append(hidden)
        problems += [render(e) for e in hidden.collect_errors]
        tests += _judge_stores(assignment, {"hidden": judged["hidden"]}, hidden, graded)
    return AssignmentGrade(assignment, tests, problems=dedupe(problems),
                           wall_s=time.monotonic() - started, run=RunResult.joined(runs))


def _judge_stores(assignment: Assignment, stores: dict[str, GoldenStore], result: RunResult,
            graded: bool) -> list[TestResult]:
    """The tests of `stores` judged on `result` (public ones on the graded inputs when
    `graded`); a test whose output the student may not see is judged redacted."""
    tests = []
    for vis, store in stores.items():
        on_graded = graded and vis == "public"
        inputs = load_inputs(assignment, GRADED_INPUTS if on_graded else vis)
        tests += judge_run(assignment, store, [
            (spec, inputs.get(test_id), result.records.get(test_id, TestRecord(test_id)))
            for test_id, spec in store.tests.items()], bool(result.collect_errors),
            redacted=on_graded or vis != "public")
    return tests


PUBLISHED_ONLY = ("passes on the published inputs (your local check) but not on the graded "
                  "inputs: your code gives the right answer only on the published inputs")


def _with_feedback(graded: TestResult, published: TestResult | None) -> TestResult:
    """A public test that failed on the graded inputs, with the message of its run on the
    published inputs (which the student has: nothing of the graded run shows) and the hints
    of both runs, the graded run's first."""
    if graded.passed or published is None:
        return graded
    hints = graded.hints + [h for h in published.hints if h not in graded.hints]
    message = PUBLISHED_ONLY if published.passed else published.message
    return replace(graded, message=message, hints=hints[:len(graded.hints) or None],
                   not_run=None if published.passed else published.not_run)


def _restricted(store: GoldenStore, ids: set[str]) -> GoldenStore:
    """`store` with only the tests in `ids` (order kept)."""
    return replace(store, tests={i: t for i, t in store.tests.items() if i in ids})
