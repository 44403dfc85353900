"""Per-test judging: a run's test records against the golden store -> TestResult each, in an
AssignmentGrade. `judge_run` judges one store's tests of a run (each test's observations
compared with its goldens through compare.py, a failing test's mutant fits ranked across the
run by hints.py); a redacted test's message shows only that it failed. `task_stores` selects
the stores of a task or of some tests; `all_failed` fails every test, not run, for a problem
of intake (a `Reason`: its reason is data, worded by cause_text).

Everything here runs in the trusted parent; student code runs only in runner's child. The
order of a submission's runs (pipeline.py) calls this once per run.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ..assignments import Assignment, Visibility
from ..backends.base import Outcome, RunResult, Status, TestRecord
from ..backends.causes import Cause, Reason
from ..harness.plaindata import PlainDataError, decode
from .cause_text import NOT_RUN, first_line, sentence
from .compare import judge_observation, observations, raise_site, short
from .hints import Fit, mutant_fits, rank_across_run
from .returns import violations
from .store import GoldenStore, TestSpec, load_stores
from .tasks import natural_key

HIDDEN_FAILED = "Hidden test failed."
GRADED_FAILED = "Failed on the graded inputs."
MAX_MESSAGE_CHARS = 4000  # one test's student-visible message; the rest is cut with a note
MAX_PRINTED_LINES = 10  # of what a failing public test printed, the last lines shown
MAX_PRINTED_LINE = 200  # characters of each


@dataclass
class TestResult:
    assignment: str
    id: str
    file: str
    visibility: Visibility
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
    not_run: Reason | None = None
    # the last lines it printed, for a failing test whose output the student may see
    printed: str = ""

    def __post_init__(self) -> None:
        self.visibility = Visibility(self.visibility)

    @property
    def points(self) -> float:
        return self.max_points if self.passed else 0.0

    def to_json(self) -> dict:
        """Plain JSON data; `from_json` rebuilds an equal result."""
        return {**asdict(self), "not_run": None if self.not_run is None else self.not_run.to_json()}

    @classmethod
    def from_json(cls, data: dict) -> TestResult:
        not_run = data.get("not_run")
        return cls(**{**data, "not_run": None if not_run is None else Reason.from_json(not_run)})


@dataclass
class AssignmentGrade:
    """One assignment's grade: its tests, the `problems` that failed tests beyond their own
    failure (intake's, the runs' collection errors: `Reason`s, worded where they are shown) and
    the `notes` (informational text: intake's decisions, the runs' notes). `unavailable`: the
    tests its draw had no expected value for, with why (instructor-only: the reason may quote
    the reference's values; report.instructor_json)."""

    assignment: Assignment
    tests: list[TestResult]
    problems: list[Reason] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    run: RunResult | None = None
    unavailable: dict[str, str] = field(default_factory=dict)

    @property
    def score(self) -> float:
        return sum(t.points for t in self.tests)

    @property
    def max_score(self) -> float:
        return sum(t.max_points for t in self.tests)


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


def _judged(assignment: Assignment, store: GoldenStore, spec: TestSpec, inputs_data,
            rec: TestRecord, collect_failed: bool, refuted: set[str],
            redacted: bool | None = None) -> tuple[TestResult, list[Fit]]:
    """One test judged, its mutant fits, and (into `refuted`) the mutants it contradicts: only
    a test that ran to its end can contradict one (a crash or a timeout says nothing)."""
    vis, test_id = store.visibility, spec.id
    redacted = vis != Visibility.PUBLIC if redacted is None else redacted
    result = TestResult(assignment.name, test_id, spec.file, vis, spec.points, False,
                        task=spec.task, task_title=spec.task_title)
    try:
        inputs = decode(inputs_data) if inputs_data is not None else None
    except PlainDataError:
        inputs = None
    observed = observations(rec.obs)  # the child's data, decoded once here
    details: list[str] = []
    not_run = None
    if rec.status == Status.NOT_RUN and collect_failed:
        not_run = Reason(Cause.NOT_LOADED)
        details.append(NOT_RUN + sentence(not_run))
    elif rec.status == Status.NOT_RUN:
        details.append(sentence(Reason(Cause.NOT_REACHED)))
    elif rec.status != Status.ENDED:
        details.append(sentence(rec.cause) if rec.cause is not None else str(rec.status))
    elif rec.outcome != Outcome.PASSED:
        details.append(raised_message(rec))
    wrong_types = violations(assignment.returns, rec.returned, assignment.package)
    if wrong_types:  # they explain what follows them (a value unencodable, an AttributeError)
        details = wrong_types
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
    for message, names in alike.items() if not wrong_types else ():
        shown = names[0] if len(names) == 1 else (
            f"{names[0]} … {names[-1]} ({len(names)} values)" if len(names) > 2
            else f"{names[0]}, {names[1]}")
        details.append(f"{shown}: {message}")
    if missing and rec.passed and not wrong_types:
        details.append(_missing_message(spec, missing))
    raised = raise_site(spec, rec.error_kind, observed) if rec.failed else None
    contradicted: set[str] = set()
    fits = mutant_fits(spec, observed, failing, store.mutants.values(), inputs,
                       assignment.checks, raised, refuted=contradicted)
    if not (failing or raised):
        fits = []
    if rec.status == Status.ENDED:
        refuted |= contradicted
    result.passed = rec.passed and not failing and not missing and not wrong_types
    if not result.passed:
        result.message = capped(_student_message(
            redacted, rec, details, HIDDEN_FAILED if vis != Visibility.PUBLIC else GRADED_FAILED))
        if not redacted:  # a hidden test's message shows only that it failed
            result.not_run = not_run
            result.printed = printed_tail(rec.output or "")
    return result, fits


def printed_tail(text: str) -> str:
    """The last MAX_PRINTED_LINES lines of what a test printed, each cut to
    MAX_PRINTED_LINE characters."""
    lines = text.rstrip("\n").splitlines()[-MAX_PRINTED_LINES:]
    return "\n".join(line if len(line) <= MAX_PRINTED_LINE else line[:MAX_PRINTED_LINE] + " ..."
                     for line in lines)


def capped(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """`message`, cut to `limit` characters with a note saying how much was cut."""
    if len(message) <= limit:
        return message
    return f"{message[:limit]}\n... {len(message) - limit:,} more characters cut"


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
    if rec.cause is not None and rec.cause.cause is Cause.MISSING_NAME:
        return sentence(rec.cause)
    if rec.error_type == "NotImplementedError":
        return (f"not implemented yet: {at} still raises NotImplementedError" if at else
                "not implemented yet (a stub still raises NotImplementedError)")
    if rec.cause is not None and rec.cause.cause is Cause.FORBIDDEN_IMPORT:
        return sentence(Reason(Cause.FORBIDDEN_IMPORT, module=rec.cause.module,
                            file=where["file"] if where else None,
                            line=where["line"] if where else None))
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


def _student_message(redacted: bool, rec: TestRecord, details: list[str],
                     failed: str = HIDDEN_FAILED) -> str:
    """Public tests show what went wrong. A redacted test (hidden, or public on the graded
    inputs) shows only that it failed and, when it raised, a builtin exception's name: nothing
    computed from its comparison (which output failed, a value) reaches the student, or it
    would be a covert channel."""
    if not redacted:
        shown = details[:6] + ([f"... and {len(details) - 6} more"] if len(details) > 6 else [])
        return "\n".join(shown)
    if rec.status == Status.REFUSED:  # the grader could not keep the goldens secret
        return f"{failed} {sentence(rec.cause) if rec.cause is not None else rec.error}"
    if rec.status == Status.ENDED and rec.outcome != Outcome.PASSED and rec.error_type:
        return f"{failed} It raised {rec.error_type}."
    return failed


def task_stores(assignment: Assignment, visibilities: tuple[Visibility, ...],
                task: int | None = None,
                ids: frozenset[str] | None = None) -> dict[Visibility, GoldenStore]:
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
    public = load_stores(assignment, (Visibility.PUBLIC,))[Visibility.PUBLIC]
    return sorted({t.task for t in public.tests.values() if t.task is not None})


def all_failed(assignment: Assignment, visibilities: tuple[Visibility, ...], problems: list[Reason],
               notes: list[str], started: float, task: int | None = None,
               ids: frozenset[str] | None = None, graded: bool = True) -> AssignmentGrade:
    """Every test of the assignment (of `task`, if given) failed, not run, for the first of
    `problems` (its first line in each message); in a grading (`graded`), a `fixed` test is
    worth nothing, as on a draw (grading/draws.py)."""
    tests = []
    reason = problems[0]
    for vis, store in task_stores(assignment, visibilities, task, ids).items():
        for test_id, spec in store.tests.items():
            points = 0.0 if graded and spec.fixed else spec.points
            tests.append(TestResult(assignment.name, test_id, spec.file, vis, points,
                                    False, NOT_RUN + first_line(reason), task=spec.task,
                                    task_title=spec.task_title, not_run=reason))
    return AssignmentGrade(assignment, tests, problems, notes, time.monotonic() - started)
