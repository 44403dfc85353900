"""The grading pipeline, the one orchestrator of a submission's grade and the entry point every
caller uses (the CLI, the demo, bulk jobs, Gradescope, nbgrader):

    intake.take_in -> per assignment: draws.draw -> backends.run -> judge.judge_run
                   -> report.Results (report.write_reports: results.json, instructor.json)

Each stage takes and returns typed values and calls no other stage. A check runs the public
tests on the published inputs. A grading runs, per assignment, in this order: the reference
solution on inputs drawn for this grading alone (draws.py: the expected values), the public
tests on that draw (redacted), those that failed there once more on the published inputs (their
messages and hints are what the student sees), the hidden tests on the draw, and those that
failed (with a value, or into their limit) once more on the stored hidden inputs (the
instructor's hints); no child whose output is shown runs after a hidden child.
`grade(parallel=N)` grades N assignments of a submission at once, in two phases (every public
child, then every hidden one), so its public and hidden children never run side by side.
Everything here runs in the trusted parent; student code runs only in the runner's child.

    from autograder.assignments import course_root
    from autograder.grading import pipeline
    from autograder.grading.job import GradeJob
    results = pipeline.grade(GradeJob(Path("alice.zip"), course_root()))
    results.score, results.max_score, results.gradescope()   # results.json's content
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path

from .. import backends
from ..assignments import Assignment, AssignmentError, Visibility, load
from ..backends import BackendError
from ..backends.base import Placement, RunRequest, RunResult, Status, TestPlan, TestRecord
from ..backends.causes import Cause, Reason
from ..sandbox import SandboxPolicy, report_lines, require
from . import draws
from .cause_text import sentence
from .draws import Draw
from .intake import Part, staging_dir, take_in
from .job import GradeJob, JobMode
from .judge import AssignmentGrade, TestResult, all_failed, judge_run, task_numbers, task_stores
from .report import Results
from .store import GoldenStore, TestSpec, load_inputs, load_store, reference_seconds


def prepare(policy: SandboxPolicy, placement: Placement | None = None) -> list[str]:
    """Check that the policy can run here on the placement's backend (IsolationError under
    strict isolation without full isolation; BackendError for a backend that cannot run);
    returns the loud warning lines."""
    placement = placement or Placement()
    require(policy)
    problem = backends.get_backend(placement.backend).problem()
    if problem:
        raise BackendError(f"backend {placement.backend!r} cannot run here: {problem}")
    return report_lines(policy) if placement.backend == "host" else []


def grade(job: GradeJob) -> Results:
    """The job's results: every assignment package found in `job.submission` (or only
    `job.assignments`) graded on a draw of its own, or (a check) its public tests judged on the
    published inputs; `job.parallel` assignments at once (`_grade_parts`)."""
    started = time.monotonic()
    warnings = prepare(job.policy, job.placement)
    chosen = [load(n, job.course_root) for n in job.assignments] or None
    if job.mode == JobMode.CHECK and job.task is not None:
        numbers = task_numbers(chosen[0])
        if job.task not in numbers:
            known = ", ".join(str(n) for n in numbers) or "none"
            raise AssignmentError(f"{chosen[0].name} has no task {job.task} (its tasks: "
                                  f"{known})")
    work = staging_dir(job.work)
    try:
        intake = take_in(job.submission, work, chosen)
        grades = _grade_parts(intake.parts, job)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    problems = list(intake.problems) if job.mode == JobMode.GRADE else []
    return Results(grades, problems, warnings, time.monotonic() - started)


def _grade_parts(parts: list[Part], job: GradeJob) -> list[AssignmentGrade]:
    """Every part graded, in order: one after the other, or `job.parallel` at once in two
    phases: every part's public children (with their feedback runs), then, once all of them
    have ended, every part's hidden children. A submission's public and hidden children thus
    never run at the same time, and its assignments' waits (ddp's timeouts) overlap others'
    work. The longest first: by the reference's stored seconds."""
    def public(part: Part) -> _PublicPhase | AssignmentGrade:
        return _part_public(part, job)

    if job.parallel <= 1 or len(parts) < 2:
        return [_part_hidden(part, public(part)) for part in parts]
    order = sorted(parts, key=lambda part: -reference_seconds(part.assignment, job.visibilities))
    with ThreadPoolExecutor(max_workers=job.parallel) as pool:
        started = [pool.submit(public, part) for part in order]
        wait(started)
        failed = [f.exception() for f in started if f.exception() is not None]
        firsts = [f.result() for f in started if f.exception() is None]
        if failed:  # the grading stops: the others' draws go with it
            for first in firsts:
                if isinstance(first, _PublicPhase):
                    first.discard()
            raise failed[0]
        graded = dict(zip(map(id, order), pool.map(_part_hidden, order, firsts)))
    return [graded[id(part)] for part in parts]


def _part_public(part: Part, job: GradeJob) -> _PublicPhase | AssignmentGrade:
    """A part's first phase: its grade when intake refused it (every test failed for intake's
    first problem), else its public tests run and judged."""
    if part.impl_root is None:
        return all_failed(part.assignment, job.visibilities, list(part.problems),
                          list(part.notes), time.monotonic(), job.task, job.ids,
                          job.mode == JobMode.GRADE)
    return _public_phase(part.assignment, part.impl_root, job)


def _part_hidden(part: Part, first: _PublicPhase | AssignmentGrade) -> AssignmentGrade:
    """A part's second phase: its hidden tests run and judged (intake's notes first)."""
    if isinstance(first, AssignmentGrade):
        return first
    grade_ = _hidden_phase(first)
    grade_.notes[:0] = part.notes
    return grade_


@dataclass
class _PublicPhase:
    """One assignment's public phase, done: its runs and results, and what the hidden phase
    needs (`_hidden_phase`): the grading's draw and `run`, which runs the implementation's
    children on given stores."""

    assignment: Assignment
    job: GradeJob
    stores: dict[str, GoldenStore]  # the published stores of the tests selected
    draw: Draw | None  # a grading's draw (None: a check, on the published inputs)
    runs: list[RunResult]
    tests: list[TestResult]
    problems: list[Reason]  # the runs' collection errors
    impl_root: Path
    notes: list[str]  # the runs' notes (runner: a child printed past its budget)
    seconds: float  # the phase's own wall time

    def discard(self) -> None:
        """Remove the draw's inputs (the grading is over, or stopped)."""
        if self.draw is not None:
            self.draw.discard()

    def run(self, stores: dict[str, GoldenStore], drawn: bool) -> RunResult:
        """The implementation's children on `stores`' tests: on the draw's inputs (`drawn`,
        redacted) or on the published ones."""
        return _run(self.job, self.job.run_request(
            self.assignment, self.impl_root, TestPlan.from_stores(stores),
            self.draw.inputs_base if drawn else None))


def _run(job: GradeJob, request: RunRequest) -> RunResult:
    """One run of the job's children on its placement's backend."""
    return backends.run(request, job.placement)


def _public_phase(assignment: Assignment, impl_root: Path, job: GradeJob) -> _PublicPhase:
    """An assignment's public tests. A check runs them (with the hidden ones, if asked) on
    the published inputs. A grading (the hidden tests among `visibilities`) draws its inputs
    (draws.py), runs the public tests on them (redacted), and runs those that failed once more
    on the published inputs, for the message and hints the student sees (nothing of the run
    on the draw shows)."""
    started = time.monotonic()
    stores = task_stores(assignment, job.visibilities, job.task, job.ids)
    # the trusted checks module may import heavy oracles (scipy, torch): load it meanwhile
    checks_loader = threading.Thread(target=lambda: assignment.checks, daemon=True)
    checks_loader.start()
    graded = job.mode == JobMode.GRADE
    drawn = draws.draw(assignment, impl_root, stores,
                       load_store(assignment, Visibility.HIDDEN).draw_secret,
                       lambda plan, salt: _run(job, job.reference_request(assignment, plan,
                                                                          salt)),
                       (job.placement, job.policy.kernels)) if graded else None
    done = _PublicPhase(assignment, job, stores, drawn, [], [], [], impl_root, [], 0.0)
    try:
        _public_runs(done, graded, checks_loader)
    except BaseException:
        done.discard()  # the hidden phase, which removes the draw's inputs, will not run
        raise
    done.seconds = time.monotonic() - started
    return done


def _public_runs(done: _PublicPhase, graded: bool, checks_loader: threading.Thread) -> None:
    """The public phase's runs and judging, into `done` (see _public_phase); the judging
    waits for `checks_loader` (the assignment's checks module)."""
    stores, drawn = done.stores, done.draw
    public = Visibility.PUBLIC
    first = {public: drawn.stores[public]} if graded and public in stores else \
        {v: st for v, st in stores.items() if not graded}
    if first:
        done.runs.append(done.run(first, graded))
    checks_loader.join()
    if done.runs:
        done.tests = _judged_on(done, first, done.runs[0], graded)
    done.problems = [e for r in done.runs for e in r.collect_errors]
    done.notes = [sentence(n) for r in done.runs for n in r.notes]
    again = _again(stores.get(public), done.tests, done.runs[0], lambda rec: True) \
        if graded and done.runs else set()
    if again:
        published = _restricted(stores[public], again)
        shown = done.run({public: published}, False)
        feedback = {t.id: t for t in _judged_on(done, {public: published}, shown, False)}
        on_draw = done.runs[0].records
        done.tests = [_with_feedback(t, feedback.get(t.id), on_draw.get(t.id))
                      if t.visibility == public else t for t in done.tests]
        done.problems = shown.collect_errors + done.problems
        done.notes = [sentence(n) for n in shown.notes] + done.notes
        # its causes join the grade's run (the package's import error, as a machine field);
        # its records do not: the runs on the draw are the ones judged
        done.runs.append(RunResult({}, shown.collect_errors, "", 0, 0.0, shown.path,
                                   shown.package_error))


def _hidden_phase(done: _PublicPhase) -> AssignmentGrade:
    """A grading's hidden tests, after its public ones: they run on the draw (unless the
    package did not import) and are judged there; those that failed (with a value, or into
    their limit: _hintable) run once more on the stored hidden inputs, where the mutants'
    values are, for the instructor's hints. The draw's inputs are removed at the end."""
    started = time.monotonic()
    runs, tests, problems = list(done.runs), list(done.tests), list(done.problems)
    notes = list(done.notes)
    try:
        if done.draw is not None and Visibility.HIDDEN in done.stores:
            hidden_store = {Visibility.HIDDEN: done.draw.stores[Visibility.HIDDEN]}
            # a package that does not import fails the hidden tests the same way: not started
            hidden = RunResult({}, [], "", 0, 0.0) if runs and runs[0].package_error \
                else done.run(hidden_store, True)
            runs.append(hidden)
            problems += hidden.collect_errors
            notes += [sentence(n) for n in hidden.notes]
            judged = _judged_on(done, hidden_store, hidden, True)
            tests += _with_hints(done, judged, hidden)
    finally:
        done.discard()
    return AssignmentGrade(done.assignment, tests, problems=dedupe(problems),
                           notes=list(dict.fromkeys(notes)),
                           wall_s=done.seconds + time.monotonic() - started,
                           run=RunResult.joined(runs),
                           unavailable=dict(done.draw.unavailable) if done.draw else {})


def _with_hints(done: _PublicPhase, judged: list[TestResult],
                result: RunResult) -> list[TestResult]:
    """The hidden tests judged on the draw, with the instructor's hints from a run on the
    stored hidden inputs (`_again`), judged there for hints only."""
    store = done.stores[Visibility.HIDDEN]
    again = _again(store, judged, result, _hintable)
    if not again:
        return judged
    stored = {Visibility.HIDDEN: _restricted(store, again)}
    hints = {t.id: t.hints for t in _judged_on(done, stored, done.run(stored, False), False)}
    return [t if t.passed else replace(t, hints=hints.get(t.id, t.hints)) for t in judged]


def _again(store: GoldenStore | None, judged: list[TestResult], result: RunResult,
           runnable: Callable[[TestRecord], bool]) -> set[str]:
    """The tests of `store` to run again on its stored inputs after a run on the draw: each
    failing one (not refused, not unavailable, and `runnable` by its record), and each
    passing one that a mutant recorded on some of those fails, so that the run on the stored
    inputs can rule that mutant out as the run on the draw did (hints.py: a mutant another
    test contradicts names nothing). Nothing when no failing test is left."""
    if store is None:
        return set()
    ours = [t for t in judged if t.id in store.tests]
    failing = {t.id for t in ours if not t.passed and t.not_run is None
               and runnable(result.records.get(t.id, TestRecord(t.id)))
               and result.records.get(t.id, TestRecord(t.id)).status != Status.REFUSED}
    candidates = [m for m in store.mutants.values() if failing & set(m.fails)]
    passed = {t.id for t in ours if t.passed}
    return failing | {t for t in passed if any(t in m.fails for m in candidates)} \
        if failing else set()


def _hintable(rec: TestRecord) -> bool:
    """Whether a failing hidden test's record can show a mutant's behaviour: it ran (to its
    end or into its limit) and did not stop at a stub."""
    return rec.status in (Status.ENDED, Status.TIMEOUT, Status.CRASHED) and \
        rec.error_type != "NotImplementedError"


def _judged_on(done: _PublicPhase, stores: dict[str, GoldenStore], result: RunResult,
               drawn: bool) -> list[TestResult]:
    """The tests of `stores` judged on `result`: on the draw (its inputs and expected values,
    redacted; no mutant values, so no hints) or on the published inputs (with hints: a public
    test's student-visible, a hidden one's the instructor's). A test the draw has no expected
    value for carries no points, with the reason."""
    tests = []
    for vis, store in stores.items():
        if drawn:
            inputs = done.draw.inputs.get(vis, {})
            tests += judge_run(done.assignment, store, [
                (spec, inputs.get(tid), result.records.get(tid, TestRecord(tid)))
                for tid, spec in store.tests.items()], bool(result.collect_errors),
                redacted=True)
            tests += [_unavailable(done.assignment, done.stores[vis].tests[tid], vis)
                      for tid in done.draw.unavailable if tid in done.stores[vis].tests]
            continue
        inputs = load_inputs(done.assignment, vis)
        tests += judge_run(done.assignment, store, [
            (spec, inputs.get(tid), result.records.get(tid, TestRecord(tid)))
            for tid, spec in store.tests.items()], bool(result.collect_errors),
            redacted=vis != Visibility.PUBLIC)
    return tests


NOT_GRADED = "not graded this time: it counts for nothing in this grading"


def _unavailable(assignment: Assignment, spec: TestSpec, visibility: Visibility) -> TestResult:
    """A test the draw has no expected value for (draws.Draw.unavailable says why): no
    points either way, and the reason in its not-run field."""
    why = Reason(Cause.UNAVAILABLE)
    return TestResult(assignment.name, spec.id, spec.file, visibility, 0.0, False,
                      f"{NOT_GRADED} ({sentence(why)})", task=spec.task,
                      task_title=spec.task_title, not_run=why)


def dedupe(problems: list[Reason]) -> list[Reason]:
    """Each cause once, in order: equal `Reason`s (the same cause from several runs) are one, and
    a collection error raised alike in several test files (the same exception, its `last`) is
    the first file's, counting the others (`count`)."""
    seen: dict[Reason, list[Reason]] = {}
    for why in problems:
        same = replace(why, file=None, detail=None) \
            if why.cause is Cause.COLLECT_ERROR and why.last is not None else why
        group = seen.setdefault(same, [])
        if why not in group:
            group.append(why)
    return [group[0] if len(group) == 1 else replace(group[0], count=len(group) - 1)
            for group in seen.values()]


PUBLISHED_ONLY = ("passes on the published inputs (your local check) but not on this "
                  "grading's inputs: your code gives the right answer only on the published "
                  "inputs")
# the same, where the run on the draw did not end: what went wrong there is how it ended (its
# status is all it shows of that run: no value, no input, no time)
PUBLISHED_ONLY_UNFINISHED = {
    Status.TIMEOUT: ("passes on the published inputs (your local check) but ran past its time "
                     "limit on this grading's inputs: make it faster on inputs like them"),
    Status.CRASHED: ("passes on the published inputs (your local check) but its process died "
                     "on this grading's inputs (out of memory, or a crash in native code)"),
}


def _with_feedback(graded: TestResult, published: TestResult | None,
                   on_draw: TestRecord | None = None) -> TestResult:
    """A public test that failed on the draw (`on_draw`: its record there), with the message
    and hints of its run on the published inputs (which the student has: nothing of the run on
    the draw shows but how it ended; the mutants a test of either run contradicts are ruled
    out of those hints)."""
    if graded.passed or published is None:
        return graded
    status = on_draw.status if on_draw is not None else Status.ENDED
    message = PUBLISHED_ONLY_UNFINISHED.get(status, PUBLISHED_ONLY) if published.passed \
        else published.message
    return replace(graded, message=message, hints=published.hints,
                   not_run=None if published.passed else published.not_run,
                   printed="" if published.passed else published.printed)


def _restricted(store: GoldenStore, ids: set[str]) -> GoldenStore:
    """`store` with only the tests in `ids` (order kept)."""
    return replace(store, tests={i: t for i, t in store.tests.items() if i in ids})
