"""What each mutant gets wrong, kept in the golden stores for hints (goldens.py calls
`add_mutants` once the solution's goldens are made). Every mutant of solutions/mutants/ is
replayed on the stored inputs (the published sets) through the placement's backend (default:
the host) with MUTANT_TIMEOUT_SCALE times each test's limit. Added to each store, per mutant
(`store.MutantValues`): its observed values that fail the goldens (those over
MAX_MUTANT_VALUE_CHARS are named, not kept), the tests it fails, where its code raised, and the
tags of the named checks its values fail.
"""

from __future__ import annotations

import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .. import backends
from ..assignments import VISIBILITIES, Assignment
from ..backends.base import Placement, RunMode, RunRequest, RunResult, TestPlan
from ..grading.compare import check_tag, decode_observed, judge_observation, raise_site
from ..grading.hints import value_digest
from ..grading.store import GoldenStore, MutantValues
from ..harness.plaindata import decode
from ..sandbox import SandboxPolicy
from .mutants import load_mutants, materialize

# a mutant's run gets this many times each test's limit: on a loaded machine a slow but
# finishing mutant must record its wrong values (they are what makes its hint fire), not a timeout
MUTANT_TIMEOUT_SCALE = 3.0
MAX_MUTANT_VALUE_CHARS = 64_000  # a larger wrong value is not kept for hints


def add_mutants(assignment: Assignment, stores: dict[str, GoldenStore], inputs: dict[str, dict],
                policy: SandboxPolicy, base: Path, placement: Placement | None) -> None:
    """Every mutant replayed on the stored inputs (the published sets), its failing values,
    failed tests, raise sites and tags added to each store."""
    plan = TestPlan.from_stores({v: stores[v] for v in VISIBILITIES})

    def run_mutant(mutant):
        with tempfile.TemporaryDirectory() as tmp:
            impl = materialize(assignment, mutant, Path(tmp))
            return backends.run(RunRequest(assignment, impl, RunMode.REPLAY, plan, policy,
                                           inputs_base=base, timeout_scale=MUTANT_TIMEOUT_SCALE,
                                           trusted=True), placement)

    mutants = load_mutants(assignment)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = dict(zip((m.name for m in mutants), pool.map(run_mutant, mutants)))
    for mutant in mutants:
        for name, store in stores.items():
            res = results[mutant.name]
            values = _failing_values(assignment, store, inputs[name], res)
            kept, unkept, digests = _kept_for_hints(values)
            store.mutants[mutant.name] = MutantValues(
                mutant.name, mutant.hint, kept,
                tuple(_failed_tests(store, res, values)), _raise_sites(store, res),
                _failure_tags(assignment, store, inputs[name], values), unkept=unkept,
                digests=digests)


def _failing_values(assignment: Assignment, store: GoldenStore, inputs: dict,
                    res: RunResult) -> dict:
    """A mutant's observed values that fail the golden ({test: {obs: (its plain data, as
    compare.Observed)}}). A value that passes can never make a hint fire, so it is not kept;
    nor is a huge one (it would bloat the store), but its test still counts as failed (see
    _failed_tests)."""
    values: dict[str, dict] = {}
    for test_id, test in store.tests.items():
        decoded = decode(inputs[test_id]) if test_id in inputs else None
        for obs in res.records[test_id].obs:
            spec = test.observations.get(obs["name"])
            if spec is None or obs["name"] in values.get(test_id, {}):
                continue
            observed = decode_observed(obs["value"])
            if judge_observation(spec, observed, decoded, assignment.checks, obs["name"]) is not None:
                values.setdefault(test_id, {})[obs["name"]] = (obs["value"], observed)
    return values


def _raise_sites(store: GoldenStore, res: RunResult) -> dict:
    """{test: compare.raise_site} for each test the mutant's code raised in (its hint fires
    when a student's test raises the same class at the same place). The store's observations
    are still in the solution's recording order here (dump sorts them)."""
    sites = {}
    for test_id, test in store.tests.items():
        rec = res.records[test_id]
        if rec.failed:
            names = [o["name"] for o in rec.obs if isinstance(o, dict)]
            site = raise_site(test, rec.error_kind, names)
            if site is not None:
                sites[test_id] = site
    return sites


def _failure_tags(assignment: Assignment, store: GoldenStore, inputs: dict,
                  values: dict) -> dict:
    """{test: {obs: tag}} for the mutant's failing values of named checks that name a tag."""
    tags: dict[str, dict] = {}
    for test_id, observed in values.items():
        decoded = decode(inputs[test_id]) if test_id in inputs else None
        for name, (_, seen) in observed.items():
            if seen.malformed is not None:
                continue  # nothing to check (a student's malformed value gets no hint either)
            tag = check_tag(store.tests[test_id].observations[name], seen.value, decoded,
                            assignment.checks, name)
            if tag is not None:
                tags.setdefault(test_id, {})[name] = tag
    return tags


def _kept_for_hints(values: dict) -> tuple[dict, dict, dict]:
    """({test: {obs: value}} of the wrong values small enough to keep, {test: [obs]} of the
    others: the mutant fails them, with a value hints can match only bit for bit, by its
    {test: {obs: digest}} (hints.value_digest))."""
    kept: dict[str, dict] = {}
    unkept: dict[str, list] = {}
    digests: dict[str, dict] = {}
    for test_id, observed in values.items():
        for name, (data, seen) in observed.items():
            if len(json.dumps(data)) <= MAX_MUTANT_VALUE_CHARS:
                kept.setdefault(test_id, {})[name] = data
            else:
                unkept.setdefault(test_id, []).append(name)
                if seen.malformed is None:
                    digests.setdefault(test_id, {})[name] = value_digest(seen.value)
    return kept, unkept, digests


def _failed_tests(store: GoldenStore, res: RunResult, values: dict) -> list[str]:
    """The tests this mutant fails: a wrong value, a missing one, an exception or a timeout."""
    failed = []
    for test_id, test in store.tests.items():
        rec = res.records[test_id]
        recorded = {o["name"] for o in rec.obs}
        if not rec.passed or test_id in values \
                or not set(test.observations) <= recorded:
            failed.append(test_id)
    return failed
