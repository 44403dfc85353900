"""The test-side harness: what graded tests import. It runs in the sandbox next to student code.

Nothing here decides a grade. Tests *record* observations; the trusted parent compares them with
goldens it alone holds (see docs/WRITING_TESTS.md). This package imports nothing else from
`autograder`: local mode hands the plugin its checker from outside (autograder/grading/local_pytest.py).
Imported by the tests (in the child), and by the trusted parent for its plain-data decoder and
the child's config type.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .clean_stack import clean_call
from .plaindata import PlainDataError, encode

__all__ = ["graded", "hypothesis_examples", "exception_kind", "outcome", "student_where", "Recorder",
           "GradedSpec", "clean_call"]

KINDS = ("exact", "close", "check")


@dataclass(frozen=True)
class GradedSpec:
    """What `@graded` attaches to a test function."""

    id: str
    points: float
    cases: Callable[[Any], Any] | None
    timeout: float | None
    shared_seed: str | None = None  # tests naming the same key draw their inputs from one seed
    measured: bool = True  # False: its limit stays `timeout`, never the reference's time x 10


def graded(points: float, cases: Callable | None = None, timeout: float | None = None,
           id: str | None = None, shared_seed: str | None = None,
           measured: bool = True) -> Callable:
    """Mark a test as graded: `points` for it, stored inputs from `cases(rng)`, optional wall
    `timeout` in seconds (default: the assignment's), explicit `id` (default: function name).
    `shared_seed`: tests that name the same key get an rng seeded from that key instead of
    their id, so that the same generator gives them the same inputs (one multi-process run
    serving a whole file), in the published and in the graded input set alike.
    `measured=False`: the test's limit stays `timeout`, never shortened to ten times the
    reference's measured time (backends/timeouts.py), for a test whose wrong answers wait by
    design longer than the reference's whole run (a rendezvous that never completes gives up
    after its own timeout): cut short, they would end as a bare timeout, with no value to
    judge or to name a classic bug by."""
    if not isinstance(points, (int, float)) or points < 0:
        raise ValueError("points must be a non-negative number")

    def mark(fn: Callable) -> Callable:
        fn._graded = GradedSpec(id or fn.__name__, float(points), cases, timeout, shared_seed,
                                bool(measured))
        return fn

    return mark


def hypothesis_examples(strategy: Any, n: int) -> list:
    """Draw up to `n` examples from a hypothesis strategy, deterministically (derandomized).
    For `cases=` generators only: graded runs replay the stored examples, with no search."""
    from hypothesis import HealthCheck, Phase, given, settings

    out: list = []

    @settings(max_examples=n, derandomize=True, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), deadline=None)
    @given(strategy)
    def collect(example: Any) -> None:
        out.append(example)

    collect()
    return out[:n]


def student_where(error: BaseException, package_dir: str) -> dict | None:
    """Where `error` was raised in the student's package (the folder `package_dir`): its
    deepest frame there, as {"function" (qualified name), "file" (relative to the folder
    holding the package, e.g. "ddp/env.py"), "line"}; None when no frame is in the package.
    For a test whose student code ran in another process: the test re-raises the error with
    this as its `graded_where` attribute, and the report names that function, file and line
    as it does for an error raised in the test's own process."""
    package_dir = os.path.realpath(package_dir)
    root = os.path.dirname(package_dir)
    found = None
    for frame, line in traceback.walk_tb(error.__traceback__):
        path = os.path.realpath(frame.f_code.co_filename)
        if path.startswith(package_dir + os.sep):
            code = frame.f_code
            found = {"function": getattr(code, "co_qualname", code.co_name),
                     "file": os.path.relpath(path, root).replace(os.sep, "/"), "line": line}
    return found


def exception_kind(error: BaseException) -> str:
    """The name an exception is recorded by: its first builtin class (in MRO order), so that a
    student's `class EnvError(ValueError)` counts as the `ValueError` the contract asks for.
    Builtin exceptions (KeyError, RecursionError, ...) keep their own name."""
    for cls in type(error).__mro__:
        if cls.__module__ == "builtins":
            return cls.__name__
    return type(error).__name__


def outcome(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """fn(*args, **kwargs), or the name its exception is recorded by (`exception_kind`): for a
    test that records what each of many calls gave, a value or an error, in one observation.
    A NotImplementedError is no answer: it propagates, as in `Recorder.raises`, so the test
    fails there and the report names the stub that still raises it in one line (a stub's error
    recorded as a value would fail every observation, each with its own line)."""
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the type is the observation
        if exception_kind(e) == "NotImplementedError":
            raise
        return exception_kind(e)


class Recorder:
    """Records a test's observations as plain data. In a graded run it never raises (but
    `raises` lets a stub's NotImplementedError through)."""

    def __init__(self, test_id: str, on_record: Callable[[dict], None] | None = None):
        self.test_id = test_id
        self.observations: list[dict] = []
        self._on_record = on_record

    def _add(self, name: str, kind: str, value: Any, atol: float = 0.0, rtol: float = 0.0,
             check: str | None = None) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("observation name must be a non-empty string")
        try:
            data = encode(value)
        except (PlainDataError, RecursionError, TypeError, ValueError, OverflowError) as e:
            data = {"__unencodable__": f"{type(value).__name__} ({type(e).__name__})"}
        obs = {"name": name, "kind": kind, "value": data, "atol": float(atol),
               "rtol": float(rtol), "check": check}
        self.observations.append(obs)
        if self._on_record is not None:
            self._on_record(obs)

    def exact(self, name: str, value: Any) -> None:
        """Record `value`; it must equal the golden exactly (as plain data)."""
        self._add(name, "exact", value)

    def close(self, name: str, value: Any, atol: float = 0.0, rtol: float = 0.0) -> None:
        """Record a numeric `value`; it must be within atol + rtol*|expected| per element."""
        self._add(name, "close", value, atol=atol, rtol=rtol)

    def check(self, name: str, value: Any, check: str) -> None:
        """Record `value`; the parent-side function `check` in tests/<a>/checks.py judges it."""
        self._add(name, "check", value, check=check)

    def raises(self, name: str, fn: Callable, *args: Any, **kwargs: Any) -> Any:
        """Call fn(*args, **kwargs); record the exception's kind (`exception_kind`: its first
        builtin class), or None if none was raised. Returns fn's result (None when it raised).
        A NotImplementedError is no answer: it propagates (the test fails there), so the report
        names the stub that still raises it, its file and line."""
        try:
            result = fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - the type is the observation
            if exception_kind(e) == "NotImplementedError":
                raise
            self._add(name, "exact", exception_kind(e))
            return None
        self._add(name, "exact", None)
        return result
