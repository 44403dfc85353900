"""The trusted checker: observations (plain data from the sandbox) against goldens.

Used by the parent for graded runs and, in local mode, by the harness. `None` means a match;
otherwise a one-line message. Nothing here trusts the observed value's type or shape.

What the child reports is decoded once, where it enters the parent (`decode_observed`, through
`observations` for a whole test record); every function below takes the decoded value (or
`Observed`). Values of the trusted golden store (`expected`, mutant values) stay encoded in
the store and are decoded here where they are compared.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from ..harness.plaindata import PlainDataError, Unencodable, decode
from .store import ObservationSpec, TestSpec

MAX_REPR = 120
_EXCEPTION_NAME = re.compile(r"^[A-Z]\w*(Error|Exception|Warning|Exit|Interrupt|Iteration)$")


@dataclass(frozen=True)
class Observed:
    """One observation the child reported, decoded: its `value`, or (`malformed`, then value
    is None) the one-line reason its plain data could not be decoded."""

    value: Any = None
    malformed: str | None = None


def decode_observed(data: Any) -> Observed:
    """The parent's one decoding of an observation's plain data as the child reported it
    (untrusted: any JSON). Never raises: malformed data gives `Observed.malformed`."""
    try:
        return Observed(decode(data))
    except (PlainDataError, RecursionError) as e:
        return Observed(malformed=str(e))


def observations(records: Iterable[Any]) -> dict[str, Observed]:
    """A test record's observations (`TestRecord.obs`, as the child reported them) decoded
    once: {name: Observed}. A record that is not a dict with a string "name" is skipped; of
    records with the same name the first wins (the later ones are not decoded)."""
    observed: dict[str, Observed] = {}
    for obs in records:
        if isinstance(obs, dict) and isinstance(obs.get("name"), str) \
                and obs["name"] not in observed:
            observed[obs["name"]] = decode_observed(obs.get("value"))
    return observed


def is_exception_name(value: Any) -> bool:
    """Whether a value is an exception's type name, as `rec.raises` records one."""
    return isinstance(value, str) and bool(_EXCEPTION_NAME.match(value))


def exception_words(observed: Any, expected: Any) -> str | None:
    """An exact observation of `rec.raises` (an exception's type name, or None for none),
    in words; None when the values are not of that kind."""
    if observed is None and is_exception_name(expected):
        return f"raised no exception, expected {expected}"
    if is_exception_name(observed) and (expected is None or is_exception_name(expected)):
        stub = " (not implemented yet)" if observed == "NotImplementedError" else ""
        want = "no exception" if expected is None else expected
        return f"raised {observed}{stub}, expected {want}"
    return None


def short(value: Any) -> str:
    """A bounded repr for messages."""
    if isinstance(value, np.ndarray):
        text = np.array2string(value, threshold=8, precision=6)
        text = f"array{list(value.shape)} {text}"
    else:
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 3] + "..."


def plain_equal(a: Any, b: Any) -> bool:
    """Exact equality of decoded plain data (NaN equals NaN; types must agree)."""
    if isinstance(a, Unencodable) or isinstance(b, Unencodable):
        return False
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        if a.dtype.kind != b.dtype.kind or a.shape != b.shape:
            return False
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list):
        return len(a) == len(b) and all(plain_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(plain_equal(a[k], b[k]) for k in a)
    return a == b


def _numeric(value: Any) -> np.ndarray | None:
    if isinstance(value, Unencodable):
        return None
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return None
    return arr if arr.dtype.kind in "biuf" else None


def compare_close(observed: Any, expected: Any, atol: float, rtol: float) -> str | None:
    """|o - e| <= atol + rtol*|e| per element; dtype kind and shape exact; NaN == NaN."""
    e = _numeric(expected)
    o = _numeric(observed)
    if e is None:
        return f"got {short(observed)}, expected {short(expected)}"
    if o is None:
        return f"expected a number/array, got {short(observed)}"
    if o.dtype.kind != e.dtype.kind and not {o.dtype.kind, e.dtype.kind} <= {"i", "u"}:
        return f"dtype kind '{o.dtype.kind}' differs from expected '{e.dtype.kind}' ({e.dtype})"
    if o.shape != e.shape:
        return f"shape {o.shape} differs from expected {e.shape}"
    if o.size == 0:
        return None
    of, ef = o.astype(np.float64), e.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(of - ef)
        bad = ~((err <= atol + rtol * np.abs(ef)) | (np.isnan(of) & np.isnan(ef))
                | ((of == ef) & np.isinf(ef)))
    if not bad.any():
        return None
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    got, want = float(of[idx]), float(ef[idx])
    tol = f"(atol={atol:g}, rtol={rtol:g})"
    if o.size == 1:
        return f"got {got!r}, expected {want!r} {tol}"
    return (f"{int(bad.sum())} of {o.size} values off, first at index {idx}: got {got!r}, "
            f"expected {want!r} {tol}")


def compare_value(spec: ObservationSpec, observed: Any, expected: Any, ctx: SimpleNamespace | None,
                  checks: Any) -> str | None:
    """Judge one decoded observed value by its manifest spec (an ObservationSpec, or the same
    fields as a dict, as a script reading the JSON store has them)."""
    if isinstance(spec, dict):
        spec = ObservationSpec(**spec)
    kind = spec.kind
    if kind == "exact":
        if plain_equal(observed, expected):
            return None
        words = exception_words(observed, expected)
        if words is not None:
            return words
        if isinstance(observed, list) and isinstance(expected, list):
            i = next((k for k, (x, y) in enumerate(zip(observed, expected))
                      if not plain_equal(x, y)), min(len(observed), len(expected)))
            got = short(observed[i]) if i < len(observed) else "nothing (list ends)"
            want = short(expected[i]) if i < len(expected) else "nothing (list ends)"
            return (f"first difference at item {i}: got {got}, expected {want} "
                    f"(lengths {len(observed)} and {len(expected)})")
        return f"got {short(observed)}, expected {short(expected)}"
    if kind == "close":
        return compare_close(observed, expected, spec.atol, spec.rtol)
    if kind == "check":
        return check_outcome(spec, observed, ctx, checks)[0]
    return f"unknown observation kind {kind!r}"


def check_outcome(spec: ObservationSpec, observed: Any, ctx: SimpleNamespace | None,
                  checks: Any) -> tuple[str | None, str | None]:
    """(message, tag) of a named check on a decoded value: message None when it passes. A
    check returns None (pass), a message, or `(tag, message)`: the tag names the failure's
    kind (e.g. "heads_mixed") so that a mutant's hint can fire on it whatever the values."""
    fn = getattr(checks, spec.check or "", None) if checks is not None else None
    if fn is None:
        return f"named check '{spec.check}' is missing from checks.py", None
    try:
        result = fn(observed, ctx)
    except Exception as e:  # noqa: BLE001 - a check that cannot read the value fails it
        return f"could not be checked ({type(e).__name__}: {str(e)[:200]})", None
    if result is None:
        return None, None
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], str):
        tag, message = result
        return str(message if message is not None else tag)[:500], tag[:100]
    return str(result)[:500], None


def check_tag(spec: ObservationSpec, observed: Any, inputs: Any, checks: Any,
              name: str) -> str | None:
    """The failure tag a named check gives this decoded value (None: it passes, is not a
    check, or names no tag)."""
    if spec.kind != "check":
        return None
    try:
        expected = decode(spec.expected)
    except (PlainDataError, RecursionError):
        return None
    ctx = SimpleNamespace(inputs=inputs, expected=expected, name=name)
    return check_outcome(spec, observed, ctx, checks)[1]


def raise_site(test: TestSpec, kind: str | None, recorded: Iterable[str]) -> dict | None:
    """Where a test raised, as the store keeps it for a mutant (store.MutantValues.raises):
    {"kind": the exception's first builtin class, "at": the first observation in the test's
    order that was not recorded (None: all were), "recorded": the test's observations recorded
    before it raised}. None when nothing (or a stub's NotImplementedError) was raised."""
    if not kind or kind == "NotImplementedError":
        return None
    seen: list[str] = []
    for name in recorded:
        if name in test.observations and name not in seen:
            seen.append(name)
    at = next((n for n in test.observations if n not in seen), None)
    return {"kind": kind, "at": at, "recorded": seen}


def same_raise(mutant: Any, student: dict | None) -> bool:
    """Whether the student's test raised the mutant's exception class at the same place: the
    same builtin class after recording the same observations."""
    if not isinstance(mutant, dict) or student is None:
        return False
    recorded = mutant.get("recorded")
    return mutant.get("kind") == student["kind"] and isinstance(recorded, list) \
        and set(recorded) == set(student["recorded"])


def judge_observation(spec: ObservationSpec, observed: Observed, inputs: Any, checks: Any,
                      name: str) -> str | None:
    """Judge one decoded observation against its manifest spec (which holds `expected`);
    a malformed one fails with its reason."""
    if observed.malformed is not None:
        return f"malformed observation ({observed.malformed})"
    return judge_value(spec, observed.value, inputs, checks, name)


def judge_value(spec: ObservationSpec, observed: Any, inputs: Any, checks: Any,
                name: str) -> str | None:
    """Judge one decoded value against its manifest spec (which holds `expected`, encoded)."""
    expected = decode(spec.expected)
    ctx = SimpleNamespace(inputs=inputs, expected=expected, name=name)
    return compare_value(spec, observed, expected, ctx, checks)
