"""Golden generation: run solutions/ in gen mode (inputs from each test's seeded `cases(rng)`),
replay it in test order and in reverse order to time each test both ways (the per-test limits
of autograder/backends/timeouts.py), then every mutant on the same inputs (mutant_values.py);
write the stores (`store.py` holds their schema) and the inputs. Also the stale check: regenerate into a temp folder and
compare with the committed ones.
"""

from __future__ import annotations

import json
import secrets
import tempfile
from dataclasses import replace
from pathlib import Path

from .. import backends
from ..assignments import GRADED_INPUTS, VISIBILITIES, Assignment
from ..backends.base import Placement, RunRequest, RunResult, TestPlan, TestRecord
from ..backends.timeouts import cold_pool
from ..grading.cause_text import render
from ..grading.compare import decode_observed, judge_observation, plain_equal
from ..grading.store import GoldenStore, ObservationSpec, StoreError, TestSpec, load_inputs, load_store
from ..grading.tasks import task_table
from ..harness import KINDS
from ..harness.plaindata import decode
from ..sandbox import SandboxPolicy
from .mutant_values import add_mutants

GEN_TEST_TIMEOUT = 600.0
GEN_RUN_TIMEOUT = 3600.0


class GoldenError(Exception):
    """Golden generation failed: the solution or a test is broken."""


def _why(rec: TestRecord) -> str | None:
    """What stopped a test of the solution: its cause in words, else what it raised."""
    return render(rec.cause) if rec.cause is not None else rec.error


def _manifest_from_run(assignment: Assignment,
                       result: RunResult) -> tuple[dict[str, GoldenStore], dict[str, dict]]:
    problems = [render(e) for e in result.collect_errors]
    tests: dict[str, dict[str, TestSpec]] = {v: {} for v in VISIBILITIES}
    inputs: dict[str, dict] = {v: {} for v in VISIBILITIES}
    checks = assignment.checks
    task_of = task_table({v: assignment.test_files(v) for v in VISIBILITIES})
    for test_id, rec in result.records.items():
        if rec.status != "ended" or rec.outcome != "passed":
            problems.append(f"{test_id}: the solution does not pass it ({rec.status}): "
                            f"{_why(rec)}")
            continue
        if not rec.obs:
            problems.append(f"{test_id}: a graded test must record at least one observation")
            continue
        meta = rec.meta
        observations = {}
        for obs in rec.obs:
            if obs["name"] in observations:
                problems.append(f"{test_id}: observation {obs['name']!r} recorded twice")
            if obs["kind"] not in KINDS:
                problems.append(f"{test_id}: unknown kind {obs['kind']}")
            if obs["kind"] == "check" and not hasattr(checks, obs["check"] or ""):
                problems.append(f"{test_id}: named check {obs['check']!r} not in checks.py")
            if isinstance(obs["value"], dict) and "__unencodable__" in obs["value"]:
                problems.append(f"{test_id}/{obs['name']}: value is not plain data")
            observations[obs["name"]] = ObservationSpec(obs["kind"], obs["atol"], obs["rtol"],
                                                        obs["check"], obs["value"])
        vis = meta["visibility"]
        task = task_of.get((vis, meta["file"]), (None, ""))
        tests[vis][test_id] = TestSpec(test_id, meta["points"], meta["timeout"], meta["file"],
                                       observations, *task)
        if rec.inputs is not None:
            inputs[vis][test_id] = rec.inputs
    if problems:
        raise GoldenError("golden generation failed:\n  " + "\n  ".join(problems))
    stores = {v: GoldenStore(assignment.name, v, tests[v], {}) for v in VISIBILITIES}
    return stores, inputs


def generate(assignment: Assignment, out_base: Path | None = None, with_mutants: bool = True,
             policy: SandboxPolicy | None = None, timed: bool = True,
             placement: Placement | None = None) -> dict[str, GoldenStore]:
    """Run the solution in gen mode (and every mutant on the same inputs) on the placement's
    backend (default: the host); write the stores under out_base (default: the
    assignment's tests folder). Returns the stores. `timed`: also replay the solution in test order and in
    reverse and store each test's timing (timeouts.py); without it the stores hold no timings
    (the stale check ignores them)."""
    policy = policy or SandboxPolicy.create()
    base = out_base or assignment.tests_dir
    result = backends.run(RunRequest(assignment, assignment.solutions, "gen", None, policy,
                                     default_timeout=GEN_TEST_TIMEOUT,
                                     run_timeout=GEN_RUN_TIMEOUT, inputs_base=base), placement)
    if not result.records or result.collect_errors:
        detail = "\n".join(map(render, result.collect_errors)) or result.stderr_tail[-2000:]
        raise GoldenError(f"golden generation for {assignment.name} collected no graded tests "
                          f"or failed to collect:\n{detail}")
    stores, inputs = _manifest_from_run(assignment, result)
    for vis in VISIBILITIES:
        path = assignment.inputs_path(vis, base)
        path.parent.mkdir(parents=True, exist_ok=True)
        # key order kept as generated: a test may build names from its inputs' order
        path.write_text(json.dumps(inputs[vis], separators=(",", ":")) + "\n")
    plan = TestPlan.from_stores(stores)  # untimed: mutants get the explicit or default limits (x3)
    if timed:
        stores = _timed(stores,
                        _timing_run(assignment, plan, policy, base, False, placement),
                        _timing_run(assignment, plan, policy, base, True, placement))
    if stores["public"].tests:
        stores[GRADED_INPUTS], inputs[GRADED_INPUTS] = _graded_set(
            assignment, stores["public"], inputs["public"], policy, base, placement)
    if with_mutants:
        add_mutants(assignment, stores, inputs, policy, base, placement)
    for name, store in stores.items():
        store.dump(assignment.goldens_path(name, base))
    return stores


def _graded_set(assignment: Assignment, public: GoldenStore, published: dict,
                policy: SandboxPolicy, base: Path,
                placement: Placement | None) -> tuple[GoldenStore, dict]:
    """The public tests' graded input set: the solution in gen mode on inputs drawn from the
    salted seeds (the committed store's salt, else a new secret one), its inputs written to
    inputs/graded.json. Each test keeps its published spec (points, task, timings) with the
    expected values of the new inputs. A test whose expected values are the same there carries
    0 points in it: its inputs ignore the seed (no `cases=`, a worked example) or its answer
    does not depend on them (a verdict such as "raises ValueError")."""
    salt = graded_salt(assignment)
    result = backends.run(RunRequest(assignment, assignment.solutions, "gen",
                                     TestPlan.from_stores({"public": public}), policy,
                                     default_timeout=GEN_TEST_TIMEOUT,
                                     run_timeout=GEN_RUN_TIMEOUT, inputs_base=base,
                                     seed_salt=salt), placement)
    made, inputs = _manifest_from_run(assignment, result)
    fresh = made["public"].tests
    if fresh.keys() != public.tests.keys():
        raise GoldenError(f"{assignment.name}: the graded input set ran other tests than the "
                          f"published one: {sorted(fresh.keys() ^ public.tests.keys())}")
    tests = {}
    for tid, spec in public.tests.items():
        drawn = decode(inputs["public"][tid]) if tid in inputs["public"] else None
        replayable = _near(decode(published[tid]) if tid in published else None, drawn,
                           0.0) or _same_expected(spec, fresh[tid])
        tests[tid] = replace(spec, observations=fresh[tid].observations,
                             points=0.0 if replayable else spec.points)
    path = assignment.inputs_path(GRADED_INPUTS, base)
    path.write_text(json.dumps(inputs["public"], separators=(",", ":")) + "\n")
    return (GoldenStore(assignment.name, "public", tests, {}, public.cold_seconds, salt),
            inputs["public"])


def _same_expected(published: TestSpec, graded: TestSpec) -> bool:
    """Whether every expected value of the test is the same on both input sets: reporting the
    published goldens passes it on the graded inputs too. (A named check that compares the
    child's values only with each other, where SPEC leaves the values free, can also accept
    them: those tests keep their points, so that the bugs only they catch still lose points;
    tests/selftest/test_graded_inputs.py lists them.)"""
    return published.observations.keys() == graded.observations.keys() and all(
        plain_equal(decode(o.expected), decode(graded.observations[name].expected))
        for name, o in published.observations.items())


def graded_salt(assignment: Assignment) -> str:
    """The salt of the graded input set: the committed store's (a regeneration, the stale
    check, reproduces its inputs), else a new secret one."""
    try:
        salt = load_store(assignment, GRADED_INPUTS).seed_salt
    except StoreError:
        salt = ""
    return salt or secrets.token_hex(16)


def _timing_run(assignment: Assignment, plan: TestPlan, policy: SandboxPolicy, base: Path,
                reverse: bool, placement: Placement | None) -> RunResult:
    """The solution replayed on the stored inputs (in test order or reversed), as a graded
    run replays it (the generating run also builds the inputs, which no graded run does), with
    generation's generous limits: one timing of each test."""
    return backends.run(RunRequest(assignment, assignment.solutions, "replay", plan, policy,
                                   default_timeout=GEN_TEST_TIMEOUT, run_timeout=GEN_RUN_TIMEOUT,
                                   inputs_base=base, trusted=True, reverse=reverse), placement)


def _timed(stores: dict[str, GoldenStore], forward: RunResult,
           reverse: RunResult) -> dict[str, GoldenStore]:
    """The stores with each test's slowest measured run and each store's cold pool
    (timeouts.py). A test that either replay did not pass (it depends on the order) or did
    not time keeps no timing: its limit stays the explicit or default one."""
    timed = {}
    for vis, store in stores.items():
        tests, pairs = {}, []
        for tid, test in store.tests.items():
            runs = [res.records.get(tid) for res in (forward, reverse)]
            if any(r is None or r.outcome != "passed" or r.seconds is None for r in runs):
                tests[tid] = replace(test, seconds=None)
                continue
            f, r = runs[0].seconds, runs[1].seconds
            pairs.append((f, r))
            tests[tid] = replace(test, seconds=round(max(f, r), 4))  # the slowest run
        timed[vis] = replace(store, tests=tests, cold_seconds=round(cold_pool(pairs), 4))
    return timed


def stale_report(assignment: Assignment, policy: SandboxPolicy | None = None,
                 replay: bool = True, placement: Placement | None = None) -> list[str]:
    """Whether the committed stores are what solutions/ and the generators produce now, with
    the manifest's tolerances. Returns the differences (empty: fresh).

    Two parts, so that the last bits of libm (np.exp, np.log differ across CPUs) cannot make a
    fresh store look stale: (1) a regeneration into a temp folder must give the same test ids,
    points, timeouts, observations, kinds and tolerances, and the same inputs up to a relative
    1e-12; (2) the solution replayed on the *committed* inputs must match the committed
    goldens within their tolerances (skipped with `replay=False`, when the caller grades the
    solution against the committed goldens anyway, as the self-test's full-marks check does)."""
    policy = policy or SandboxPolicy.create()
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        generated = generate(assignment, Path(tmp), with_mutants=False, policy=policy,
                             timed=False, placement=placement)
        # read back as the committed ones are read (load_store: whole task titles)
        fresh = {vis: load_store(assignment, vis, Path(tmp)) for vis in generated}
        committed = {}
        for name in fresh:
            try:
                committed[name] = load_store(assignment, name)
            except StoreError as e:
                problems.append(str(e))
                continue
            if not _near(decode_inputs(load_inputs(assignment, name)),
                         decode_inputs(load_inputs(assignment, name, Path(tmp)))):
                problems.append(f"{name} inputs differ from what the generators produce now")
            problems += _manifest_differences(committed[name], fresh[name], name)
    if problems or not committed or not replay:
        return problems
    shown = {v: committed[v] for v in VISIBILITIES}
    both = backends.run(RunRequest(assignment, assignment.solutions, "replay",
                                   TestPlan.from_stores(shown), policy, trusted=True), placement)
    results = {v: both for v in VISIBILITIES}
    if GRADED_INPUTS in committed:
        results[GRADED_INPUTS] = backends.run(
            RunRequest(assignment, assignment.solutions, "replay",
                       TestPlan.from_stores({"public": committed[GRADED_INPUTS]}), policy,
                       trusted=True, graded_public=True), placement)
    for vis, store in committed.items():
        inputs = load_inputs(assignment, vis)
        result = results[vis]
        for tid, test in store.tests.items():
            rec = result.records[tid]
            if rec.status != "ended" or rec.outcome != "passed":
                problems.append(f"{tid}: the solution does not pass it now ({rec.status}: "
                                f"{_why(rec)})")
                continue
            observed = {o["name"]: o["value"] for o in rec.obs if isinstance(o, dict)}
            decoded = decode(inputs[tid]) if tid in inputs else None
            for name, spec in test.observations.items():
                if name not in observed:
                    problems.append(f"{tid}/{name}: not recorded by the solution now")
                elif judge_observation(spec, decode_observed(observed[name]), decoded,
                                       assignment.checks, name) is not None:
                    problems.append(f"{tid}/{name}: the solution's value changed")
    return problems


def _manifest_differences(old_store: GoldenStore, new_store: GoldenStore,
                          name: str = "") -> list[str]:
    """How the manifest of `new_store` differs from `old_store` (store `name`, default its
    visibility): test ids, points, timeouts, files, observation names, kinds, tolerances."""
    problems = []
    vis = name or old_store.visibility
    old_tests, new_tests = old_store.tests, new_store.tests
    if old_tests.keys() != new_tests.keys():
        return [f"{vis} test ids differ: committed {sorted(old_tests)} vs now {sorted(new_tests)}"]
    for tid, new in new_tests.items():
        old = old_tests[tid]
        if replace(old, observations={}, seconds=None) != replace(new, observations={},
                                                                  seconds=None):
            problems.append(f"{tid}: points/timeout/file changed")
        if old.observations.keys() != new.observations.keys():
            problems.append(f"{tid}: observation names changed")
            continue
        for name, spec in new.observations.items():
            if replace(old.observations[name], expected=None) != replace(spec, expected=None):
                problems.append(f"{tid}/{name}: kind or tolerance changed")
    return problems


def decode_inputs(inputs: dict) -> dict:
    return {k: decode(v) for k, v in inputs.items()}


def _near(a, b, rtol: float = 1e-12) -> bool:
    """Plain data equal, floats (and float arrays) up to a relative `rtol`."""
    import numpy as np

    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) \
                or a.shape != b.shape or a.dtype.kind != b.dtype.kind:
            return False
        if a.dtype.kind == "f":
            return bool(np.allclose(a, b, rtol=rtol, atol=0.0, equal_nan=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or abs(a - b) <= rtol * max(abs(a), abs(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_near(x, y, rtol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_near(a[k], b[k], rtol) for k in a)
    return plain_equal(a, b)
