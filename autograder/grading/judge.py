"""The grading pipeline: intake -> sandboxed run -> trusted check. Produces AssignmentGrade.

Everything here runs in the trusted parent; student code runs only in runner's child.
"""

from __future__ import annotations

import shutil
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import backends
from ..assignments import GRADED_INPUTS, VISIBILITIES, Assignment
from ..backends.base import Placement, RunRequest, RunResult, TestPlan, TestRecord
from ..harness.plaindata import PlainDataError, decode
from ..sandbox import SandboxPolicy
from .compare import judge_observation, observations, raise_site, short
from .found_instead import found_instead
from .hints import Fit, mutant_fits, rank_across_run
from .intake import find_package, stage, staging_dir
from .store import GoldenStore, TestSpec, load_inputs, load_store, load_stores
from .tasks import natural_key

HIDDEN_FAILED = "Hidden test failed."
GRADED_FAILED = "Failed on the graded inputs."
MAX_MESSAGE_CHARS = 4000  # one test's student-visible message; the rest is cut with a note


@dataclass
class TestResult:
    assignment: str
    id: str
    file: str
    visibility: str
    max_points: float
    passed: bool
    message: str = ""  # what the student may see
    # best-fitting first (hints.MAX_HINTS; the others "also consistent"). Student-visible for
    # public tests only: a hidden test's hints come from its hidden comparison, for the
    # instructor (report.instructor_json)
    hints: list[str] = field(default_factory=list)
    task: int | None = None  # the handout's task (store.TestSpec.task)
    task_title: str = ""
    # why the test did not run, where its message says so (results.json's machine fields)
    not_run: str | None = None

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
    problems = [e for r in runs for e in r.collect_errors]
    failing = {t.id for t in tests if t.visibility == "public" and not t.passed
               and runs[0].records.get(t.id, TestRecord(t.id)).status != "refused"}
    if graded and failing:
        published = _restricted(stores["public"], failing)
        shown = run({"public": published})
        feedback = {t.id: t for t in _judge_stores(assignment, {"public": published}, shown,
                                                   False)}
        tests = [_with_feedback(t, feedback.get(t.id)) if t.visibility == "public" else t
                 for t in tests]
        problems = list(shown.collect_errors) + problems
    if "hidden" in judged and "hidden" not in first:
        # a package that does not import fails the hidden tests the same way: not started
        hidden = RunResult({}, [], "", 0, 0.0) if runs and runs[0].package_error \
            else run({"hidden": judged["hidden"]})
        runs.append(hidden)
        problems += hidden.collect_errors
        tests += _judge_stores(assignment, {"hidden": judged["hidden"]}, hidden, graded)
    return AssignmentGrade(assignment, tests, problems=_dedupe(problems),
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


def judge_run(assignment: Assignment, store: GoldenStore, runs: list[tuple[TestSpec, Any,
              TestRecord]], collect_failed: bool = False,
              redacted: bool | None = None) -> list[TestResult]:
    """Judge one store's tests of a run ((spec, encoded inputs, record) each); each failing
    test's hints are ranked across the run (hints.rank_across_run): within one visibility, so
    a hidden comparison never orders a public test's hints. `redacted` (default: a hidden
    store): a failing test's message shows only that it failed (and a builtin exception's
    name), nothing computed from its comparison."""
    refuted: set[str] = set()  # mutants a test of the run contradicts
    judged = [_judged(assignment, store, spec, inputs_data, rec, collect_failed, refuted,
                      redacted)
              for spec, inputs_data, rec in runs]
    for (result, _), hints in zip(judged, rank_across_run([fits for _, fits in judged],
                                                          refuted)):
        result.hints = hints
    return [result for result, _ in judged]


def _judge_test(assignment: Assignment, store: GoldenStore, spec: TestSpec, inputs_data,
                rec: TestRecord, collect_failed: bool = False) -> TestResult:
    """One test judged alone (its hints ranked as a run of one test)."""
    return judge_run(assignment, store, [(spec, inputs_data, rec)], collect_failed)[0]


def _judged(assignment: Assignment, store: GoldenStore, spec: TestSpec, inputs_data,
            rec: TestRecord, collect_failed: bool, refuted: set[str],
            redacted: bool | None = None) -> tuple[TestResult, list[Fit]]:
    """One test judged, its mutant fits, and (into `refuted`) the mutants it contradicts: only
    a test that ran to its end can contradict one (a crash or a timeout says nothing)."""
    vis, test_id = store.visibility, spec.id
    redacted = vis != "public" if redacted is None else redacted
    result = TestResult(assignment.name, test_id, spec.file, vis, spec.points, False,
                        task=spec.task, task_title=spec.task_title)
    try:
        inputs = decode(inputs_data) if inputs_data is not None else None
    except PlainDataError:
        inputs = None
    observed = observations(rec.obs)  # the child's data, decoded once here
    details: list[str] = []
    not_run = None
    if rec.status == "not_run" and collect_failed:
        not_run = ("its test file could not be loaded (see the problem above: usually your "
                   "package raised while being imported)")
        details.append(NOT_RUN + not_run)
    elif rec.status == "not_run":
        details.append("not run (the test process stopped before reaching it)")
    elif rec.status != "ended":
        details.append(rec.error or rec.status)
    elif rec.outcome != "passed":
        details.append(raised_message(rec))
    failing, missing = set(), []
    alike: dict[str, list[str]] = {}  # message -> the observations it is about
    for name in sorted(spec.observations, key=natural_key):
        ospec = spec.observations[name]
        if name not in observed:
            missing.append(name)
            continue
        message = judge_observation(ospec, observed[name], inputs, assignment.checks, name)
        if message is not None:
            failing.add(name)
            alike.setdefault(message, []).append(name)
    for message, names in alike.items():
        shown = names[0] if len(names) == 1 else (
            f"{names[0]} … {names[-1]} ({len(names)} values)" if len(names) > 2
            else f"{names[0]}, {names[1]}")
        details.append(f"{shown}: {message}")
    if missing and rec.status == "ended" and rec.outcome == "passed":
        details.append(_missing_message(spec, missing))
    raised = raise_site(spec, rec.error_kind, observed) \
        if rec.status == "ended" and rec.outcome == "failed" else None
    contradicted: set[str] = set()
    fits = mutant_fits(spec, observed, failing, store.mutants.values(), inputs,
                       assignment.checks, raised, refuted=contradicted)
    if not (failing or raised):
        fits = []
    if rec.status == "ended":
        refuted |= contradicted
    result.passed = (rec.status == "ended" and rec.outcome == "passed" and not failing
                     and not missing)
    if not result.passed:
        result.message = capped(_student_message(
            redacted, rec, details, HIDDEN_FAILED if vis != "public" else GRADED_FAILED))
        if not redacted:  # a hidden test's message shows only that it failed
            result.not_run = not_run
    return result, fits


def capped(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """`message`, cut to `limit` characters with a note saying how much was cut."""
    if len(message) <= limit:
        return message
    return f"{message[:limit]}\n... {len(message) - limit:,} more characters cut"


NOT_RUN = "not run: "  # the start of a message of a test that did not run (display only)
FORBIDDEN_MARK = "is forbidden in this assignment"


def raised_message(rec: TestRecord) -> str:
    """A test that raised, in the student's terms: which of their functions raised, where."""
    where = rec.where if rec.where and rec.where.get("student") else None
    at = ""
    if where is not None:
        function = where.get("function") or ""
        named = f"{function}()" if function and not function.startswith("<") else ""
        at = f"{named} ({where['file']}:{where['line']})" if named else \
            f"{where['file']}:{where['line']}"
    error = rec.error or "an exception"
    if rec.error_type == "NotImplementedError":
        return (f"not implemented yet: {at} still raises NotImplementedError" if at else
                "not implemented yet (a stub still raises NotImplementedError)")
    if rec.error_type in ("ImportError", "ModuleNotFoundError") and FORBIDDEN_MARK in error:
        module = error.split("module ", 1)[-1].split(" ", 1)[0]
        place = f"{where['file']}, line {where['line']}" if where else "your code"
        return (f"{place} imports {module}, which this assignment forbids (it would do the "
                f"work for you)")
    if at:
        return f"{error}, raised in {at}"
    if rec.where:  # raised in the test itself (e.g. an assertion about your result)
        return f"{error} (at {rec.where['file']}:{rec.where['line']} in the test)"
    return f"raised {error}"


def _missing_message(spec: TestSpec, missing: list[str]) -> str:
    first = missing[0]
    try:
        expected = short(decode(spec.observations[first].expected))
    except PlainDataError:
        expected = "a value"
    more = f" (and {len(missing) - 1} more: {', '.join(missing[1:4])}" + (
        " ...)" if len(missing) > 4 else ")") if len(missing) > 1 else ""
    return (f"the test ended without a value for {first}{more}; expected {first} = {expected} "
            f"(it stopped recording early)")


def _dedupe(problems: list[str]) -> list[str]:
    """Collection errors with the same cause (e.g. the package raising on import, once per
    test file) are shown once."""
    seen: dict[str, list[str]] = {}
    for p in problems:
        lines = [ln for ln in p.strip().splitlines() if ln.strip()]
        seen.setdefault(lines[-1] if lines else p, []).append(p)
    return [group[0] + (f"\n(the same error in {len(group) - 1} more test file(s))"
                        if len(group) > 1 else "") for group in seen.values()]


def _student_message(redacted: bool, rec: TestRecord, details: list[str],
                     failed: str = HIDDEN_FAILED) -> str:
    """Public tests show what went wrong. A redacted test (hidden, or public on the graded
    inputs) shows only that it failed and, when it raised, a builtin exception's name: nothing
    computed from its comparison (which output failed, a value) reaches the student, or it
    would be a covert channel."""
    if not redacted:
        shown = details[:6] + ([f"... and {len(details) - 6} more"] if len(details) > 6 else [])
        return "\n".join(shown)
    if rec.status == "refused":  # the grader could not keep the goldens secret
        return f"{failed} {rec.error}"
    if rec.status == "ended" and rec.outcome != "passed" and rec.error_type:
        return f"{failed} It raised {rec.error_type}."
    return failed


def task_stores(assignment: Assignment, visibilities: tuple[str, ...],
                task: int | None = None,
                ids: frozenset[str] | None = None) -> dict[str, GoldenStore]:
    """The golden stores, restricted to one handout task's tests when `task` is given and to
    the tests named in `ids` when that is given."""
    stores = load_stores(assignment, visibilities)
    if task is None and ids is None:
        return stores
    return {v: replace(s, tests={i: t for i, t in s.tests.items()
                                 if (task is None or t.task == task)
                                 and (ids is None or i in ids)})
            for v, s in stores.items()}


def task_numbers(assignment: Assignment) -> list[int]:
    """The task numbers the public tests name."""
    return sorted({t.task for t in load_stores(assignment, ("public",))["public"].tests.values()
                   if t.task is not None})


def all_failed(assignment: Assignment, visibilities: tuple[str, ...], problems: list[str],
               notes: list[str], started: float, task: int | None = None,
               ids: frozenset[str] | None = None) -> AssignmentGrade:
    """Every test of the assignment (of `task`, if given) failed, not run, for the first of
    `problems`."""
    tests = []
    for vis, store in task_stores(assignment, visibilities, task, ids).items():
        for test_id, spec in store.tests.items():
            reason = problems[0].splitlines()[0]
            tests.append(TestResult(assignment.name, test_id, spec.file, vis, spec.points,
                                    False, NOT_RUN + reason, task=spec.task,
                                    task_title=spec.task_title, not_run=reason))
    return AssignmentGrade(assignment, tests, problems, notes, time.monotonic() - started)
