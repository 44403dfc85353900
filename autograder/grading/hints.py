"""Misconception hints: which mutants' recorded behaviour a student's failing test fits.

The rule (SPEC §3 "Hints", docs/WRITING_TESTS.md "Mutants and hints"): a mutant fits a failing
test when, on every observation of the test where the mutant differs from the golden, the
student's outcome is the mutant's (the same wrong value within tolerance, the same named
check's failure tag, not recorded where it raised at the same place) and the student passes
none of them. A fit never rests on a single observation whose value space is tiny (a boolean,
a small integer such as a length or a count, None) while the student fails other observations
of the test that the mutant does not explain: where the mutant's one tiny difference is all the
test has to say, it may. Across a run, the mutant that fits the most
observations is named first and the others as also consistent (`rank_across_run`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..harness.plaindata import PlainDataError, decode
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
        return plain_equal(student, mutant)
    return compare_value(spec, student, mutant, None, checks) is None \
        and judge_value(spec, mutant, inputs, checks, name) is not None


def mutant_fits(test: TestSpec, observed: dict[str, Observed], failing: set[str],
                mutants: Iterable[MutantValues], inputs: Any, checks: Any,
                raised: dict | None = None, pending: frozenset[str] = frozenset()) -> list[Fit]:
    """The mutants that fit the student's failing test (the module's rule), in the order
    given. `observed`: the test's decoded observations (a malformed one counts as not
    recorded); `failing`: those that fail the golden; `raised`: the student's raise site
    (compare.raise_site); `pending`: observations not yet reported (local mode judges as the
    test records), which neither confirm nor contradict a mutant."""
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

    fits = []
    for order, mutant in enumerate(mutants):
        values = mutant.values.get(test.id, {})
        tags = mutant.tags.get(test.id, {})
        unkept = set(mutant.unkept.get(test.id, ()))
        site = mutant.raises.get(test.id)
        recorded = site.get("recorded") if isinstance(site, dict) else None
        not_recorded = names - set(recorded) if isinstance(recorded, list) else set()
        differs = (set(values) | set(tags) | unkept | not_recorded) & names
        if (not differs and site is None) or differs & passing:
            continue  # passes the test, or fails what the student passes
        if site is not None and not same_raise(site, raised):
            continue  # raised elsewhere, or another class
        matched: set[str] = set()
        fits_all = True
        for n in sorted(differs - unkept - pending):
            if n in not_recorded:
                agree: bool | None = True if n in missing else False
            elif n not in values_of:
                agree = False  # the mutant recorded a wrong value, the student nothing
            elif n in tags and tag_of(n) == tags[n]:
                agree = True
            elif n in values:
                agree = _agrees(test.observations[n], values_of[n], values[n], inputs,
                                checks, n)
            else:
                agree = False  # another failure tag, and no value to compare
            if agree is False:
                fits_all = False
                break
            if agree and n not in not_recorded:
                matched.add(n)
        evidence = len(matched) + (site is not None)
        if not fits_all or not evidence:
            continue
        unexplained = len(student_fails - differs)
        if site is None and unexplained and len(matched) == 1 \
                and _tiny(test.observations[next(iter(matched))], values_of[next(iter(matched))]):
            continue  # one boolean or count says too little beside failures it does not explain
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


def rank_across_run(per_test: list[list[Fit]]) -> list[list[str]]:
    """Each test's hints from its fits, at most MAX_HINTS, each text once: first the mutant
    that fits the most observations across the run (the sum of its `matched` over the tests
    it fits), then the fewest of the test's failures left unexplained, the most matched in
    the test, the mutants' order. The first is the test's hint; the others are shown as
    "also consistent with" it."""
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


def _all_nonfinite(value: Any) -> bool:
    arr = _numeric(value)
    return arr is not None and arr.dtype.kind == "f" and arr.size > 0 \
        and not np.isfinite(arr).any()
