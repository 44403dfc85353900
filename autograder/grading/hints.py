"""Misconception hints: which mutants' recorded behaviour a student's failing test fits.

The rule (SPEC §3 "Hints", docs/WRITING_TESTS.md "Mutants and hints"): a mutant fits a failing
test when, on every observation of the test where the mutant differs from the golden, the
student's outcome is the mutant's (the same wrong value within tolerance, the same named
check's failure tag, not recorded where it raised at the same place) and the student passes
none of them. Where the student fails observations of the test that the mutant does not
explain, the mutant must match more observations than are left unexplained, and never on a
single observation whose value space is tiny (a boolean, a small integer such as a length or a
count, None): where the mutant's one tiny difference is all the test has to say, it may. A
mutant that another test of the run contradicts (it fails that test and the student's outcome
there is not its own) names nothing in the run: the fit elsewhere is a coincidence. Across a
run, the mutant that fits the most observations is named first and the others as also
consistent (`rank_across_run`). A named check's failure tag that several mutants get (a
symptom, "too many false positives") names none of them unless the values match too.

"The same value" is float_policy's wherever a float computation made it: a named check's
value within the cross-machine allowance at float32's roundoff at least (its precision is not
stated; exactly where checks.py lists the check in BITWISE_CHECKS: the contract fixes its
bits), a `close` value within the observation's tolerance or that allowance and, relatively,
MATCH_RTOL plus that allowance; an `exact` one equal.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..harness.plaindata import PlainDataError, decode, encode
from . import float_policy
from .compare import (
    Observed,
    _numeric,
    check_tag,
    compare_value,
    judge_value,
    plain_equal,
    same_raise,
)
from .store import MutantValues, ObservationSpec, TestSpec

MAX_HINTS = 2  # per test: the best-fitting ones
MATCH_RTOL = 1e-5  # a wrong value matches the mutant's relatively (float32 internals allowed)
TINY_INT = 1024  # an integer of at most this magnitude is a length or a count: tiny evidence


@dataclass(frozen=True)
class Fit:
    """A mutant that fits a failing test: its `hint`, the observations (and a raise site)
    where the student's outcome is the mutant's (`matched`), the student's failures it does
    not explain (`unexplained`), and its place among the assignment's mutants (`order`)."""

    hint: str
    matched: int
    unexplained: int
    order: int


def low_information(value: Any) -> bool:
    """Whether a decoded value's space is tiny: None, a boolean, or an integer of at most
    TINY_INT in magnitude (scalar or 0-d array). An exception's name is not: the golden's
    None against a RecursionError says where the bug is."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return True
    if isinstance(value, (int, np.integer)):
        return abs(int(value)) <= TINY_INT
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "biu":
        return value.dtype.kind == "b" or abs(int(value)) <= TINY_INT
    return False


def _tiny(spec: ObservationSpec, value: Any) -> bool:
    """Whether an observation's golden and the student's value are both low_information."""
    try:
        return low_information(decode(spec.expected)) and low_information(value)
    except (PlainDataError, RecursionError):
        return False


def _agrees(spec: ObservationSpec, student: Any, mutant_data: Any, inputs: Any, checks: Any,
            name: str) -> bool | None:
    """Whether the student's failing value is the mutant's wrong value: True, False, or None
    when it says nothing (both NaN/inf: any diverging bug gives that)."""
    try:
        mutant = decode(mutant_data)
    except (PlainDataError, RecursionError):
        return None
    if _all_nonfinite(mutant):
        return None if _all_nonfinite(student) else False
    if spec.kind == "check":
        if spec.check in getattr(checks, "BITWISE_CHECKS", ()):
            return plain_equal(student, mutant)
        return float_policy.same_result(student, mutant, float_policy.FLOAT32_ROUNDOFF)
    same = compare_value(spec, student, mutant, None, checks) is None
    if spec.kind == "close":
        # the golden's tolerance may be 0 (an exact zero by contract) where the mutant's wrong
        # value is a float computation another machine rounds otherwise
        same = (same or float_policy.same_result(student, mutant)) \
            and _relatively_equal(spec, student, mutant)
    return same and judge_value(spec, mutant, inputs, checks, name) is not None


def _relatively_equal(spec: ObservationSpec, student: Any, mutant: Any) -> bool:
    """Where the mutant's value is wrong, the student's equals it relatively (MATCH_RTOL, or
    the observation's rtol if larger, plus float_policy's cross-machine allowance), not only
    within the golden's atol: two gradients that both vanished (1e-15 and 1e-20 where the
    golden is 0.3) are two bugs, not one."""
    s, m = _numeric(student), _numeric(mutant)
    try:
        e = _numeric(decode(spec.expected))
    except (PlainDataError, RecursionError):
        e = None
    if s is None or m is None or e is None or s.shape != m.shape or m.shape != e.shape:
        return True  # compare_value already judged it; nothing finer to say
    room = float_policy.allowance(m) if m.dtype.kind == "f" else 0.0
    s, m, e = (x.astype(np.float64) for x in (s, m, e))
    with np.errstate(invalid="ignore", over="ignore"):
        wrong = ~((np.abs(m - e) <= spec.atol + spec.rtol * np.abs(e))
                  | (np.isnan(m) & np.isnan(e)))
        # an observation with an absolute tolerance (an optimizer's fit, which other kernels
        # move by more than float_policy's allowance) matches within a MARGIN-th of it where
        # the mutant's value is larger than that tolerance (vanished values stay distinct)
        fit_room = np.where(np.abs(m) > spec.atol, spec.atol / float_policy.MARGIN, 0.0)
        same = (np.abs(s - m) <= max(spec.rtol, MATCH_RTOL) * np.abs(m) + room + fit_room) \
            | (np.isnan(s) & np.isnan(m)) | (s == m)
    return bool(same[wrong].all())


def mutant_fits(test: TestSpec, observed: dict[str, Observed], failing: set[str],
                mutants: Iterable[MutantValues], inputs: Any, checks: Any,
                raised: dict | None = None, pending: frozenset[str] = frozenset(),
                refuted: set[str] | None = None) -> list[Fit]:
    """The mutants that fit the student's failing test (the module's rule), in the order
    given. `observed`: the test's decoded observations (a malformed one counts as not
    recorded); `failing`: those that fail the golden; `raised`: the student's raise site
    (compare.raise_site); `pending`: observations not yet reported (local mode judges as the
    test records), which neither confirm nor contradict a mutant. `refuted`, when given,
    receives the hints of the mutants this test contradicts (they fail it, and the student's
    outcome is not theirs: rank_across_run drops them from the whole run)."""
    values_of = {n: o.value for n, o in observed.items() if o.malformed is None}
    names = set(test.observations)
    missing = {n for n in names if n not in values_of} - pending
    passing = {n for n in names if n in values_of and n not in failing}
    student_fails = (failing & names) | missing
    tags_of: dict[str, str | None] = {}

    def tag_of(n: str) -> str | None:
        if n not in tags_of:
            tags_of[n] = check_tag(test.observations[n], values_of[n], inputs, checks, n)
        return tags_of[n]

    mutants = list(mutants)
    sharing: dict[tuple[str, str], int] = {}  # (observation, tag) -> mutants that get that tag
    for mutant in mutants:
        for n, tag in mutant.tags.get(test.id, {}).items():
            sharing[(n, tag)] = sharing.get((n, tag), 0) + 1
    fits = []
    for order, mutant in enumerate(mutants):
        values = mutant.values.get(test.id, {})
        tags = mutant.tags.get(test.id, {})
        unkept = set(mutant.unkept.get(test.id, ()))
        digests = mutant.digests.get(test.id, {})  # of unkept values
        site = mutant.raises.get(test.id)
        recorded = site.get("recorded") if isinstance(site, dict) else None
        not_recorded = names - set(recorded) if isinstance(recorded, list) else set()
        differs = (set(values) | set(tags) | unkept | not_recorded) & names
        if not differs and site is None:
            continue  # passes the test (or failed it in a way the store does not keep)
        if differs & passing or (site is not None and not same_raise(site, raised)):
            if refuted is not None:
                refuted.add(mutant.hint)
            continue  # fails what the student passes, or raised elsewhere or another class
        matched: set[str] = set()
        by_shared_tag: set[str] = set()  # matched only by a tag other mutants get too
        fits_all = True
        for n in sorted(differs - (unkept - set(digests)) - pending):
            if n in not_recorded:
                agree: bool | None = True if n in missing else False
            elif n not in values_of:
                agree = False  # the mutant recorded a wrong value, the student nothing
            elif n in tags and tag_of(n) == tags[n]:
                agree = True
                if n in values:
                    same = _agrees(test.observations[n], values_of[n], values[n], inputs,
                                   checks, n)
                else:
                    same = n in digests and digests[n] == value_digest(values_of[n])
                if sharing[(n, tags[n])] > 1 and not same:
                    by_shared_tag.add(n)
            elif n in values:
                agree = _agrees(test.observations[n], values_of[n], values[n], inputs,
                                checks, n)
            elif n in digests:  # a value too large to keep: the same bits are evidence; other
                # bits say nothing (another machine rounds a float computation otherwise)
                agree = True if digests[n] == value_digest(values_of[n]) else None
            else:
                agree = False  # another failure tag, and no value to compare
            if agree is False:
                fits_all = False
                break
            if agree and n not in not_recorded:
                matched.add(n)
        if not fits_all:
            if refuted is not None:
                refuted.add(mutant.hint)
            continue
        evidence = len(matched) + (site is not None)
        if not evidence or (site is None and matched <= by_shared_tag):
            continue  # nothing matched, or only a symptom several mutants share
        # an observation the student did not record is no evidence against the mutant (it may
        # not have recorded it either: the store keeps only the values it did record)
        unexplained = len(student_fails - differs - missing)
        first = next(iter(matched), None)
        if site is None and unexplained and (len(matched) <= unexplained or (
                len(matched) == 1 and _tiny(test.observations[first], values_of[first]))):
            continue  # explains too little of the failure: a coincidence as likely as a cause
        fits.append(Fit(mutant.hint, evidence, unexplained, order))
    return fits


def ranked_hints(test: TestSpec, observed: dict[str, Observed], failing: set[str],
                 mutants: Iterable[MutantValues], inputs: Any, checks: Any,
                 raised: dict | None = None, pending: frozenset[str] = frozenset()
                 ) -> list[str]:
    """The hints of the mutants that fit this one test (mutant_fits), ranked as
    rank_across_run ranks a run of one test."""
    return rank_across_run([mutant_fits(test, observed, failing, mutants, inputs, checks,
                                        raised, pending)])[0]


def rank_across_run(per_test: list[list[Fit]], refuted: set[str] = frozenset()
                    ) -> list[list[str]]:
    """Each test's hints from its fits, at most MAX_HINTS, each text once, none of a mutant
    another test of the run contradicts (`refuted`: its failure there is not the student's, so
    a fit elsewhere is a coincidence): first the mutant that fits the most observations across
    the run (the sum of its `matched` over the tests it fits), then the fewest of the test's
    failures left unexplained, the most matched in the test, the mutants' order. The first is
    the test's hint; the others are shown as "also consistent with" it."""
    per_test = [[f for f in fits if f.hint not in refuted] for fits in per_test]
    total: dict[str, int] = {}
    for fits in per_test:
        for f in fits:
            total[f.hint] = total.get(f.hint, 0) + f.matched
    ranked = []
    for fits in per_test:
        hints: list[str] = []
        for f in sorted(fits, key=lambda f: (-total[f.hint], f.unexplained, -f.matched,
                                             f.order)):
            if f.hint not in hints:
                hints.append(f.hint)
        ranked.append(hints[:MAX_HINTS])
    return ranked


def value_digest(value: Any) -> str:
    """sha256 of a decoded value's canonical plain data: how a wrong value too large to keep
    is remembered (mutant_values.py) and matched, bit for bit."""
    try:
        data = encode(value)
    except (PlainDataError, RecursionError, TypeError, ValueError, OverflowError):
        return ""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _all_nonfinite(value: Any) -> bool:
    arr = _numeric(value)
    return arr is not None and arr.dtype.kind == "f" and arr.size > 0 \
        and not np.isfinite(arr).any()
