"""The results contract: one reader of results.json for everything downstream of grading.

report.results_json writes, beside each test's display fields (name, output, ...), the machine
fields under the test's Gradescope `extra_data` (RESULTS_KEY): assignment, task, task title,
test id, file, visibility, the hints shown and the not-run reason; and under the run's own
`extra_data` (RESULTS_KEY), intake's notes and, per assignment, the one-line reason its package
did not import (`package_errors`: a reason to show, as `not_run` is, never one to parse). `read_results` validates a
results.json (a path, bytes or an already parsed dict) once, where it enters a trusted process,
and returns a `GradedRun` of frozen `GradedTest`s; gradebook, class report, bulk and the regrade
preview read only these, never a display string, so report.py may word its text freely.

A malformed or forged file (not JSON, a wrong type, a test without its machine fields, a
visibility or status that does not exist, a score above its maximum) raises ResultsError with one
line saying what is wrong; nothing half-read escapes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..assignments import Visibility
from ..backends.base import Outcome
from .safe_text import visible

INSTRUCTOR_KEY = "instructor"  # classroom/job.py's extra top-level key; never written into results.json
RESULTS_KEY = "autograder"  # the key under a test's extra_data that holds its machine fields
VERSION = 1
# ours -> Gradescope's
GRADESCOPE_VISIBILITY = {Visibility.PUBLIC: "visible", Visibility.HIDDEN: "after_published"}
MAX_FILE = 64 * 2**20  # bytes of one results.json read from disk


class ResultsError(ValueError):
    """A results.json that is not one this engine wrote (one line: what is wrong)."""


@dataclass(frozen=True)
class GradedTest:
    """One graded test as the machine fields say: `task` is the handout's task number (None:
    the test names no task), `visibility` public or hidden, `hints` the misconception hints
    shown with it (public tests only), `not_run` why it was not run (None: it ran)."""

    name: str  # results.json's display name: an opaque key (instructor.json uses it)
    assignment: str
    task: int | None
    task_title: str
    test_id: str
    file: str
    visibility: Visibility
    score: float
    max_score: float
    passed: bool
    hints: tuple[str, ...] = ()
    not_run: str | None = None

    @property
    def task_label(self) -> str:
        """The short task label: "Task N", or "Other tests" when the test names no task."""
        return f"Task {self.task}" if self.task is not None else "Other tests"


@dataclass(frozen=True)
class GradedRun:
    """One submission's results.json (`tests` in its order) with, where read beside it, the
    instructor-only hints of instructor.json (`instructor_hints`: by test name)."""

    score: float
    max_score: float
    output: str
    tests: tuple[GradedTest, ...]
    instructor_hints: Mapping[str, tuple[str, ...]]
    notes: tuple[str, ...] = ()  # intake's decisions (files left out, ...): "<assignment>: ..."
    # why an assignment's package did not run (its import failed): one line per assignment
    package_errors: Mapping[str, str] = field(default_factory=dict)

    def of(self, assignment: str) -> list[GradedTest]:
        """The tests that belong to `assignment`."""
        return [t for t in self.tests if t.assignment == assignment]

    def rejection(self) -> list[str]:
        """Why nothing of the submission was graded, one line each: every test not run (their
        reasons), or every assignment's package refused by intake or failing to import (its
        reason, after "<assignment>: " when there are several); else []."""
        if self.tests and all(t.not_run is not None for t in self.tests):
            return sorted({t.not_run for t in self.tests})
        if not self.tests:
            return [self.output.strip() or "nothing graded"]
        names = list(dict.fromkeys(t.assignment for t in self.tests))
        if not self.package_errors or not all(
                a in self.package_errors or all(t.not_run is not None for t in self.of(a))
                for a in names):
            return []
        reasons = {a: self.package_errors.get(a) or "; ".join(sorted(
            {t.not_run for t in self.of(a)})) for a in names}
        return [f"{a}: {why}" if len(names) > 1 else why for a, why in reasons.items()]

    def package_problems(self) -> list[str]:
        """"<assignment>: why its package did not run" for each assignment whose package
        failed to import (also where other assignments of the submission were graded)."""
        return [f"{a}: {why}" for a, why in self.package_errors.items()]

    def misconceptions(self) -> set[str]:
        """Every hint that fired for this submission: the public tests' and the instructor-only
        record's."""
        return {h for t in self.tests for h in t.hints} | {
            h for hs in self.instructor_hints.values() for h in hs}


def machine_fields(assignment: str, task: int | None, task_title: str, test_id: str, file: str,
                   visibility: Visibility, hints: list[str], not_run: str | None) -> dict:
    """A test's extra_data as report.results_json writes it (the writer's half of the contract)."""
    return {RESULTS_KEY: {"version": VERSION, "assignment": assignment, "task": task,
                          "task_title": task_title, "test_id": test_id, "file": file,
                          "visibility": visibility, "hints": list(hints), "not_run": not_run}}


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ResultsError(f"{what} is not a string")
    return visible(value)


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ResultsError(f"{what} is not a finite number")
    return float(value)


def _hints(value: object, what: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise ResultsError(f"{what} is not a list")
    return tuple(_text(h, what) for h in value)


def _test(t: object, k: int) -> GradedTest:
    where = f"tests[{k}]"
    if not isinstance(t, dict):
        raise ResultsError(f"{where} is not an object")
    fields = (t.get("extra_data") or {}).get(RESULTS_KEY) if isinstance(t.get("extra_data"), dict) \
        else None
    if not isinstance(fields, dict) or fields.get("version") != VERSION:
        raise ResultsError(f"{where} has no machine fields (extra_data.{RESULTS_KEY}, version "
                           f"{VERSION}): not written by this grader")
    task = fields.get("task")
    if task is not None and (isinstance(task, bool) or not isinstance(task, int)):
        raise ResultsError(f"{where}: task is not a whole number")
    vis, shown = fields.get("visibility"), t.get("visibility")
    if not any(vis == ours and shown == theirs for ours, theirs in GRADESCOPE_VISIBILITY.items()):
        raise ResultsError(f"{where}: visibility {visible(str(vis))!r} does not match the test's")
    if t.get("status") not in tuple(Outcome):
        raise ResultsError(f"{where}: status is neither passed nor failed")
    score, top = _number(t.get("score"), f"{where}.score"), _number(t.get("max_score"),
                                                                   f"{where}.max_score")
    if not 0 <= score <= top:
        raise ResultsError(f"{where}: score {score:g} outside 0..{top:g}")
    not_run = fields.get("not_run")
    return GradedTest(
        name=_text(t.get("name"), f"{where}.name"),
        assignment=_text(fields.get("assignment"), f"{where}: assignment"),
        task=task, task_title=_text(fields.get("task_title"), f"{where}: task_title"),
        test_id=_text(fields.get("test_id"), f"{where}: test_id"),
        file=_text(fields.get("file"), f"{where}: file"), visibility=Visibility(vis),
        score=score, max_score=top, passed=t["status"] == Outcome.PASSED,
        hints=_hints(fields.get("hints"), f"{where}: hints"),
        not_run=None if not_run is None else _text(not_run, f"{where}: not_run"))


def _instructor(data: object) -> dict[str, tuple[str, ...]]:
    if data is None:
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("hints", {}), dict):
        raise ResultsError("instructor.json is not {\"hints\": {test name: [hint, ...]}}")
    return {_text(name, "instructor.json: a test name"): _hints(hs, "instructor.json: hints")
            for name, hs in data.get("hints", {}).items()}


def _parse(source: str | Path | bytes | dict, what: str) -> object:
    if isinstance(source, dict):
        return source
    if isinstance(source, str | Path):
        path = Path(source)
        try:
            if path.stat().st_size > MAX_FILE:
                raise ResultsError(f"{what} is larger than {MAX_FILE // 2**20} MiB")
            source = path.read_bytes()
        except OSError as e:
            raise ResultsError(f"{what} cannot be read ({type(e).__name__})") from None
    try:
        return json.loads(source)
    except (ValueError, RecursionError) as e:
        raise ResultsError(f"{what} is not JSON ({type(e).__name__})") from None


def read_results(source: str | Path | bytes | dict,
                 instructor: str | Path | bytes | dict | None = None) -> GradedRun:
    """The GradedRun of a results.json (`source`: its path, bytes or parsed dict) and, if
    given, its instructor.json (else the record under INSTRUCTOR_KEY, as classroom/job.py prints it).
    ResultsError, one line, for anything this grader never writes."""
    data = _parse(source, "results.json")
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        raise ResultsError("results.json is not an object with a list of tests")
    tests = tuple(_test(t, k) for k, t in enumerate(data["tests"]))
    hints = _instructor(data.get(INSTRUCTOR_KEY) if instructor is None
                        else _parse(instructor, "instructor.json"))
    extra = data.get("extra_data") if isinstance(data.get("extra_data"), dict) else {}
    fields = extra.get(RESULTS_KEY) if isinstance(extra.get(RESULTS_KEY), dict) else {}
    errors = fields.get("package_errors", {})
    if not isinstance(errors, dict):
        raise ResultsError("extra_data package_errors is not an object")
    return GradedRun(_number(data.get("score"), "score"),
                     _number(data.get("max_score"), "max_score"),
                     _text(data.get("output", ""), "output"), tests, hints,
                     _hints(fields.get("notes", []), "extra_data notes"),
                     {_text(a, "extra_data package_errors: a name"):
                      _text(why, "extra_data package_errors: a reason")
                      for a, why in errors.items()})
