"""Golden generation: run solutions/ in gen mode (inputs from each test's seeded `cases(rng)`),
replay it in test order and in reverse order to time each test both ways (the per-test limits
of autograder/backends/timeouts.py), run it on a probe draw to mark the tests that are the same
on every draw (`fixed`, grading/draws.py), then every mutant on the same inputs
(mutant_values.py); write the stores (`store.py` holds their schema) and the inputs. Also the
stale check: regenerate into a temp folder and compare with the committed ones.
"""

from __future__ import annotations

import json
import secrets
import tempfile
from dataclasses import replace
from pathlib import Path

from .. import backends
from ..assignments import VISIBILITIES, Assignment, Visibility
from ..backends.base import Outcome, Placement, RunMode, RunRequest, RunResult, TestPlan, TestRecord
from ..backends.timeouts import cold_pool
from ..grading.cause_text import sentence
from ..grading.compare import compare_close, decode_observed, judge_observation, plain_equal
from ..grading.draws import draw_salt
from ..grading.float_policy import FLOAT32_ROUNDOFF, excess, same_result
from ..grading.store import GoldenStore, ObservationSpec, StoreError, TestSpec, load_inputs, load_store
from ..grading.tasks import task_table
from ..harness import KINDS
from ..harness.plaindata import decode
from ..sandbox import SandboxPolicy
from .mutant_values import add_mutants
from .origin import origin

GEN_TEST_TIMEOUT = 600.0
GEN_RUN_TIMEOUT = 3600.0


class GoldenError(Exception):
    """Golden generation failed: the solution or a test is broken."""


def _why(rec: TestRecord) -> str | None:
    """What stopped a test of the solution: its cause in words, else what it raised."""
    return sentence(rec.cause) if rec.cause is not None else rec.error


def _manifest_from_run(assignment: Assignment,
                       result: RunResult) -> tuple[dict[str, GoldenStore], dict[str, dict]]:
    problems = [sentence(e) for e in result.collect_errors]
    tests: dict[str, dict[str, TestSpec]] = {v: {} for v in VISIBILITIES}
    inputs: dict[str, dict] = {v: {} for v in VISIBILITIES}
    checks = assignment.checks
    task_of = task_table({v: assignment.test_files(v) for v in VISIBILITIES})
    for test_id, rec in result.records.items():
        if not rec.passed:
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
        vis = Visibility(meta["visibility"])
        task = task_of.get((vis, meta["file"]), (None, ""))
        tests[vis][test_id] = TestSpec(test_id, meta["points"], meta["timeout"], meta["file"],
                                       observations, *task,
                                       measured=meta.get("measured") is not False)
        if rec.inputs is not None:
            inputs[vis][test_id] = rec.inputs
    if problems:
        raise GoldenError("golden generation failed:\n  " + "\n  ".join(problems))
    stores = {v: GoldenStore(assignment.name, v, tests[v], {}) for v in VISIBILITIES}
    return stores, inputs


def generate(assignment: Assignment, out_base: Path | None = None, with_mutants: bool = True,
             policy: SandboxPolicy | None = None, timed: bool = True,
             placement: Placement | None = None,
             with_origin: bool = True, marked: bool = True) -> dict[str, GoldenStore]:
    """Run the solution in gen mode (and every mutant on the same inputs) on the placement's
    backend (default: the host); write the stores under out_base (default: the
    assignment's tests folder). Returns the stores. `timed`: also replay the solution in test order and in
    reverse and store each test's timing (timeouts.py); without it the stores hold no timings
    (the stale check ignores them). `with_origin`: the stores say what made them (origin.py;
    the stale check's comparison run needs no origin). `marked`: the `fixed` marks from probe
    draws (_with_fixed; the stale check compares everything but them: they follow from the
    tests' generators, which its inputs comparison covers)."""
    policy = policy or SandboxPolicy.create()
    base = out_base or assignment.tests_dir
    result = backends.run(RunRequest(assignment, assignment.solutions, RunMode.GEN, None, policy,
                                     default_timeout=GEN_TEST_TIMEOUT,
                                     run_timeout=GEN_RUN_TIMEOUT, inputs_base=base), placement)
    if not result.records or result.collect_errors:
        detail = "\n".join(map(sentence, result.collect_errors)) or result.stderr_tail[-2000:]
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
    if marked:
        stores = _with_fixed(assignment, stores, inputs, policy, placement)
    if with_mutants:
        add_mutants(assignment, stores, inputs, policy, base, placement)
    if with_origin:
        made_by = {**origin(policy.kernels), "backend": (placement or Placement()).backend}
        stores = {name: replace(store, origin=made_by) for name, store in stores.items()}
    for name, store in stores.items():
        store.dump(assignment.goldens_path(name, base))
    return stores


PROBE_DRAWS = 3  # a test is fixed only when every probe draw leaves it the same


def _with_fixed(assignment: Assignment, stores: dict[str, GoldenStore], published: dict,
                policy: SandboxPolicy, placement: Placement | None) -> dict[str, GoldenStore]:
    """The stores with each test's `fixed` mark and the hidden store's draw secret (the
    committed one, kept by a regeneration, else a new one). The solution runs in gen mode on
    PROBE_DRAWS probe draws (salts of their own, no submission's): a test whose inputs on every
    one are the published ones (no `cases=`, a worked example), or whose expected values are (a
    verdict such as "raises ValueError"), is the same on every draw and carries no points in a
    grading (grading/draws.py). One probe alone could meet the published answer of a test
    whose answer takes few values by chance."""
    secret = draw_secret(assignment)
    same = {(vis, tid): True for vis, store in stores.items() for tid in store.tests}
    for k in range(PROBE_DRAWS):
        probe = draw_salt(secret, assignment, f"probe draw {k} of golden generation")
        result = backends.run(RunRequest(assignment, assignment.solutions, RunMode.GEN,
                                         TestPlan.from_stores(stores), policy,
                                         default_timeout=GEN_TEST_TIMEOUT,
                                         run_timeout=GEN_RUN_TIMEOUT, seed_salt=probe),
                              placement)
        drawn, drawn_inputs = _manifest_from_run(assignment, result)
        for vis, store in stores.items():
            fresh = drawn[vis].tests
            if fresh.keys() != store.tests.keys():
                raise GoldenError(f"{assignment.name}: a probe draw ran other {vis} tests than "
                                  f"the published set: {sorted(fresh.keys() ^ store.tests.keys())}")
            for tid, spec in store.tests.items():
                inputs = drawn_inputs[vis].get(tid)
                same_inputs = _near(decode(published[vis][tid]) if tid in published[vis]
                                    else None, decode(inputs) if inputs is not None else None,
                                    0.0)
                same[(vis, tid)] &= same_inputs or _same_expected(spec, fresh[tid])
    return {vis: replace(store, tests={tid: replace(spec, fixed=same[(vis, tid)])
                                       for tid, spec in store.tests.items()},
                         draw_secret=secret if vis == Visibility.HIDDEN else "")
            for vis, store in stores.items()}


def _same_expected(published: TestSpec, drawn: TestSpec) -> bool:
    """Whether every expected value of the test is the same on both input sets: reporting the
    published goldens passes it on a draw too. (A named check that compares the child's
    values only with each other, where SPEC leaves the values free, can also accept them:
    those tests keep their points, so that the bugs only they catch still lose points;
    tests/selftest/test_draws.py lists them.)"""
    return published.observations.keys() == drawn.observations.keys() and all(
        plain_equal(decode(o.expected), decode(drawn.observations[name].expected))
        for name, o in published.observations.items())


def draw_secret(assignment: Assignment) -> str:
    """The key of the assignment's draws: the committed hidden store's (a regeneration keeps
    every draw, and the stale check reproduces the `fixed` marks), else a new secret one."""
    try:
        secret = load_store(assignment, Visibility.HIDDEN).draw_secret
    except StoreError:
        secret = ""
    return secret or secrets.token_hex(16)


def _timing_run(assignment: Assignment, plan: TestPlan, policy: SandboxPolicy, base: Path,
                reverse: bool, placement: Placement | None) -> RunResult:
    """The solution replayed on the stored inputs (in test order or reversed), as a graded
    run replays it (the generating run also builds the inputs, which no graded run does), with
    generation's generous limits: one timing of each test."""
    return backends.run(RunRequest(assignment, assignment.solutions, RunMode.REPLAY, plan, policy,
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
            if any(r is None or r.outcome != Outcome.PASSED or r.seconds is None for r in runs):
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

    Two parts, so that goldens made on another machine (other kernels round matrix products,
    libm's np.exp and np.log differ in the last bit) are not stale here: (1) a regeneration
    into a temp folder must give the same test ids, points, timeouts, observations, kinds and
    tolerances, the same inputs and the same expected values: equal where `exact`, within
    float_policy's cross-machine allowance where a float computation made them (inputs,
    `close` values, or within the observation's tolerance where it is looser:
    `_value_differences`; a named check's value is the check's to judge, in part 2: a digest
    of generated tensors differs with their bits); (2) the solution replayed on the *committed*
    inputs must match the committed goldens within their tolerances (skipped with
    `replay=False`, when the caller grades the solution against the committed goldens
    anyway, as the self-test's full-marks check does)."""
    policy = policy or SandboxPolicy.create()
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        generated = generate(assignment, Path(tmp), with_mutants=False, policy=policy,
                             timed=False, placement=placement, with_origin=False,
                             marked=False)
        # read back as the committed ones are read (load_store: whole task titles)
        fresh = {vis: load_store(assignment, vis, Path(tmp)) for vis in generated}
        committed = {}
        for name in fresh:
            try:
                committed[name] = load_store(assignment, name)
            except StoreError as e:
                problems.append(str(e))
                continue
            if not same_result(decode_inputs(load_inputs(assignment, name, Path(tmp))),
                               decode_inputs(load_inputs(assignment, name))):
                problems.append(f"{name} inputs differ from what the generators produce now")
            changed = _manifest_differences(committed[name], fresh[name], name)
            problems += changed or _value_differences(committed[name], fresh[name], name)
    if problems or not committed or not replay:
        return problems
    shown = {v: committed[v] for v in VISIBILITIES}
    both = backends.run(RunRequest(assignment, assignment.solutions, RunMode.REPLAY,
                                   TestPlan.from_stores(shown), policy, trusted=True), placement)
    for vis, store in committed.items():
        inputs = load_inputs(assignment, vis)
        result = both
        for tid, test in store.tests.items():
            rec = result.records[tid]
            if not rec.passed:
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
    visibility): test ids, points, timeouts, files, observation names, kinds, tolerances (not
    the `fixed` marks)."""
    problems = []
    vis = name or old_store.visibility
    old_tests, new_tests = old_store.tests, new_store.tests
    if old_tests.keys() != new_tests.keys():
        return [f"{vis} test ids differ: committed {sorted(old_tests)} vs now {sorted(new_tests)}"]
    for tid, new in new_tests.items():
        old = old_tests[tid]
        if replace(old, observations={}, seconds=None, fixed=False) != replace(
                new, observations={}, seconds=None, fixed=False):
            problems.append(f"{tid}: points/timeout/file changed")
        if old.observations.keys() != new.observations.keys():
            problems.append(f"{tid}: observation names changed")
            continue
        for name, spec in new.observations.items():
            before = old.observations[name]
            if (before.kind, before.check) != (spec.kind, spec.check) or not same_result(
                    [float(spec.atol), float(spec.rtol)], [float(before.atol), float(before.rtol)],
                    FLOAT32_ROUNDOFF):
                # a tolerance scaled to the value (e.g. fusion's clip_tol) moves with the value
                # within float_policy's allowance; that is no change of manifest
                problems.append(f"{tid}/{name}: kind or tolerance changed")
    return problems


def _value_differences(old_store: GoldenStore, new_store: GoldenStore, name: str) -> list[str]:
    """The expected values of `new_store` (a regeneration; same manifest) that moved from
    `old_store`'s: an `exact` one that changed, a `close` one beyond float_policy's allowance
    and beyond the observation's own tolerance (a test that states a looser precision than
    the allowance computes iteratively, e.g. an optimizer's fit, whose result other kernels
    move by more; no grade can tell such a move). Named checks' values: see stale_report."""
    problems = []
    for tid, new in new_store.tests.items():
        for obs, spec in new.observations.items():
            old = old_store.tests[tid].observations[obs]
            if spec.kind == "exact" and not plain_equal(decode(spec.expected),
                                                        decode(old.expected)):
                problems.append(f"{name} {tid}/{obs}: the expected value changed")
            elif spec.kind == "close":
                new_value, old_value = decode(spec.expected), decode(old.expected)
                moved = excess(new_value, old_value)
                if moved > 1.0 and compare_close(new_value, old_value, spec.atol,
                                                 spec.rtol) is not None:
                    problems.append(f"{name} {tid}/{obs}: the expected value moved {moved:.3g} "
                                    f"allowances (float_policy), beyond its tolerance too")
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
