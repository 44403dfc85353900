"""The grading pipeline, the one orchestrator of a submission's grade and the entry point every
caller uses (the CLI, the demo, bulk jobs, Gradescope, nbgrader):

    intake.take_in -> per assignment: backends.run -> judge.judge_run (in the order below)
                   -> report.Results (report.write: results.json, instructor.json)

Each stage takes and returns typed values and calls no other stage. `grade_staged` runs the
tests on the placement's backend in this order: the public tests (in a graded run, on the graded
inputs, redacted), those that failed there once more on the published inputs (their messages
are what the student sees), then the hidden tests; no child whose output is shown runs after a
hidden child. `grade(parallel=N)` grades N assignments of a submission at once, in two phases
(every public child, then every hidden one), so its public and hidden children never run side
by side. Everything here runs in the trusted parent; student code runs only in the runner's
child.

    from autograder.grading import pipeline
    from autograder.sandbox import SandboxPolicy
    results = pipeline.grade(Path("alice.zip"), policy=SandboxPolicy.create("auto"))
    results.score, results.max_score, results.gradescope()   # results.json's content
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from .. import backends
from ..assignments import GRADED_INPUTS, VISIBILITIES, Assignment, AssignmentError, load
from ..backends import BackendError, get_backend
from ..backends.base import Placement, RunRequest, RunResult, TestPlan, TestRecord
from ..sandbox import SandboxPolicy, report_lines, require
from .cause_text import render
from .intake import Part, staging_dir, take_in
from .judge import AssignmentGrade, TestResult, all_failed, judge_run, task_numbers, task_stores
from .report import Results
from .store import GoldenStore, StoreError, load_inputs, load_store


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
          placement: Placement | None = None, parallel: int = 1) -> Results:
    """Grade every assignment package found in `submission` (a folder or a zip; or only
    `assignments`), its children on the `placement`'s backend (default: the host); with
    `parallel` > 1, that many assignments at once (`_grade_parts`)."""
    started = time.monotonic()
    policy = policy or SandboxPolicy.create()
    warnings = prepare(policy, placement)
    chosen = [load(n) for n in assignments] if assignments else None
    work = staging_dir()
    try:
        intake = take_in(Path(submission), work, chosen)
        grades = _grade_parts(intake.parts, visibilities, policy, placement, parallel)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return Results(grades, list(intake.problems), warnings, time.monotonic() - started)


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


def grade_submission_root(assignment: Assignment, root: Path,
                          visibilities: tuple[str, ...] = VISIBILITIES,
                          policy: SandboxPolicy | None = None,
                          task: int | None = None,
                          ids: frozenset[str] | None = None,
                          placement: Placement | None = None) -> AssignmentGrade:
    """Grade the assignment's package found in the folder `root` (at its root or one folder
    down); with `task`, only that handout task's tests; with `ids`, only the tests of those
    ids; on the `placement`'s backend (default: the host)."""
    started = time.monotonic()
    work = staging_dir()
    try:
        part, = take_in(root, work, [assignment]).parts
        return _grade_part(part, visibilities, policy or SandboxPolicy.create(), task, ids,
                           placement, started)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _grade_parts(parts: list[Part], visibilities: tuple[str, ...], policy: SandboxPolicy,
                 placement: Placement | None, parallel: int) -> list[AssignmentGrade]:
    """Every part graded, in order: one after the other, or `parallel` at once in two phases:
    every part's public children (with their feedback runs), then, once all of them have
    ended, every part's hidden children. A submission's public and hidden children thus never
    run at the same time, and its assignments' waits (ddp's timeouts) overlap others' work.
    The longest first: by the reference's stored seconds."""
    def public(part: Part) -> _PublicDone | AssignmentGrade:
        return _part_public(part, visibilities, policy, None, None, placement)

    if parallel <= 1 or len(parts) < 2:
        return [_part_hidden(part, public(part)) for part in parts]
    order = sorted(parts, key=lambda part: -_reference_seconds(part.assignment, visibilities))
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        firsts = list(pool.map(public, order))
        graded = dict(zip(map(id, order), pool.map(_part_hidden, order, firsts)))
    return [graded[id(part)] for part in parts]


def _reference_seconds(assignment: Assignment, visibilities: tuple[str, ...]) -> float:
    """The reference's stored test seconds (0 where a store is missing or unreadable)."""
    try:
        return sum(t.seconds or 0.0 for v in visibilities
                   for t in load_store(assignment, v).tests.values())
    except (StoreError, OSError, ValueError, KeyError, TypeError):
        return 0.0


def _grade_part(part: Part, visibilities: tuple[str, ...], policy: SandboxPolicy,
                task: int | None, ids: frozenset[str] | None, placement: Placement | None,
                started: float) -> AssignmentGrade:
    """One assignment after intake: every test failed for intake's first problem, or run
    and judged (intake's notes first); its wall time counted from `started`."""
    grade_ = _part_hidden(part, _part_public(part, visibilities, policy, task, ids, placement))
    grade_.wall_s = time.monotonic() - started
    return grade_


def _part_public(part: Part, visibilities: tuple[str, ...], policy: SandboxPolicy,
                 task: int | None, ids: frozenset[str] | None,
                 placement: Placement | None) -> _PublicDone | AssignmentGrade:
    """A part's first phase: its grade when intake refused it (every test failed for intake's
    first problem), else its public tests run and judged."""
    if part.impl_root is None:
        return all_failed(part.assignment, visibilities, list(part.problems), list(part.notes),
                          time.monotonic(), task, ids)
    return _public_phase(part.assignment, part.impl_root, visibilities, policy, task, ids,
                         placement)


def _part_hidden(part: Part, first: _PublicDone | AssignmentGrade) -> AssignmentGrade:
    """A part's second phase: its hidden tests run and judged (intake's notes first)."""
    if isinstance(first, AssignmentGrade):
        return first
    grade_ = _hidden_phase(first)
    grade_.notes[:0] = part.notes
    return grade_


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
    return _hidden_phase(_public_phase(assignment, impl_root, visibilities, policy, task, ids,
                                       placement, graded_inputs))


@dataclass
class _PublicDone:
    """One assignment between its phases: the public tests' runs and results, and how to run
    the hidden ones (`_hidden_phase`)."""

    assignment: Assignment
    judged: dict[str, GoldenStore]
    hidden_left: bool  # the hidden tests are to run (a check's ran with the public ones)
    runs: list[RunResult]
    tests: list[TestResult]
    problems: list[str]
    graded: bool
    run: Callable[[dict[str, GoldenStore]], RunResult]
    seconds: float  # the phase's own wall time


def _public_phase(assignment: Assignment, impl_root: Path, visibilities: tuple[str, ...],
                  policy: SandboxPolicy | None, task: int | None, ids: frozenset[str] | None,
                  placement: Placement | None, graded_inputs: bool | None = None) -> _PublicDone:
    """`grade_staged` up to its hidden tests: the public ones (and their feedback run)."""
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
    return _PublicDone(assignment, judged, "hidden" in judged and "hidden" not in first, runs,
                       tests, problems, graded, run, time.monotonic() - started)


def _hidden_phase(done: _PublicDone) -> AssignmentGrade:
    """`grade_staged` from its hidden tests on: they run (unless the package did not import)
    and are judged; the assignment's grade."""
    started = time.monotonic()
    runs, tests, problems = list(done.runs), list(done.tests), list(done.problems)
    if done.hidden_left:
        # a package that does not import fails the hidden tests the same way: not started
        hidden = RunResult({}, [], "", 0, 0.0) if runs and runs[0].package_error \
            else done.run({"hidden": done.judged["hidden"]})
        runs.append(hidden)
        problems += [render(e) for e in hidden.collect_errors]
        tests += _judge_stores(done.assignment, {"hidden": done.judged["hidden"]}, hidden,
                               done.graded)
    return AssignmentGrade(done.assignment, tests, problems=dedupe(problems),
                           wall_s=done.seconds + time.monotonic() - started,
                           run=RunResult.joined(runs))


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


def dedupe(problems: list[str]) -> list[str]:
    """Collection errors with the same cause (e.g. the package raising on import, once per
    test file) are shown once."""
    seen: dict[str, list[str]] = {}
    for p in problems:
        lines = [ln for ln in p.strip().splitlines() if ln.strip()]
        seen.setdefault(lines[-1] if lines else p, []).append(p)
    return [group[0] + (f"\n(the same error in {len(group) - 1} more test file(s))"
                        if len(group) > 1 else "") for group in seen.values()]


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
