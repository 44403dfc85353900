"""The golden store: generated from solutions/ (and the mutants) by the instructor command.

tests/<a>/goldens/<vis>.json (trusted parent only; public ships to students):
  {"assignment", "visibility", "tests": {id: {"points", "timeout", "file",
     "observations": {name: {"kind", "atol", "rtol", "check", "expected"}}}},
   "mutants": {name: {"hint", "values": {id: {obs: value}}}}}
tests/<a>/inputs/<vis>.json (enters the sandbox): {id: encoded cases}
"""

from __future__ import annotations

import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .assignments import VISIBILITIES, Assignment
from .compare import judge, plain_equal
from .harness import KINDS
from .harness.plaindata import decode
from .mutants import load_mutants, materialize
from .runner import run_tests

GEN_TEST_TIMEOUT = 600.0
GEN_RUN_TIMEOUT = 3600.0
MAX_MUTANT_VALUE_CHARS = 64_000  # a larger wrong value is not kept for hints


class GoldenError(Exception):
    """Golden generation failed: the solution or a test is broken."""


def load_store(assignment: Assignment, visibility: str, base: Path | None = None) -> dict:
    path = assignment.goldens_path(visibility, base)
    if not path.exists():
        raise GoldenError(f"no goldens at {path}: run `make goldens`")
    return json.loads(path.read_text(encoding="utf-8"))


def load_inputs(assignment: Assignment, visibility: str) -> dict:
    path = assignment.inputs_path(visibility)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _manifest_from_run(assignment: Assignment, result) -> tuple[dict, dict]:
    problems = list(result.collect_errors)
    stores = {v: {"assignment": assignment.name, "visibility": v, "tests": {}, "mutants": {}}
              for v in VISIBILITIES}
    inputs: dict[str, dict] = {v: {} for v in VISIBILITIES}
    checks = assignment.checks
    for test_id, rec in result.records.items():
        if rec.status != "ended" or rec.outcome != "passed":
            problems.append(f"{test_id}: the solution does not pass it ({rec.status}): {rec.error}")
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
            observations[obs["name"]] = {"kind": obs["kind"], "atol": obs["atol"],
                                         "rtol": obs["rtol"], "check": obs["check"],
                                         "expected": obs["value"]}
        vis = meta["visibility"]
        stores[vis]["tests"][test_id] = {"points": meta["points"], "timeout": meta["timeout"],
                                         "file": meta["file"], "observations": observations}
        if rec.inputs is not None:
            inputs[vis][test_id] = rec.inputs
    if problems:
        raise GoldenError("golden generation failed:\n  " + "\n  ".join(problems))
    return stores, inputs


def generate(assignment: Assignment, out_base: Path | None = None,
             with_mutants: bool = True) -> dict[str, dict]:
    """Run the solution in gen mode (and every mutant on the same inputs); write the stores
    under out_base (default: the assignment's tests folder). Returns the stores."""
    base = out_base or assignment.tests_dir
    result = run_tests(assignment, assignment.solutions, "gen", None,
                       default_timeout=GEN_TEST_TIMEOUT,
                       run_timeout=GEN_RUN_TIMEOUT, inputs_base=base)
    if not result.records or result.collect_errors:
        detail = "\n".join(result.collect_errors) or result.stderr_tail[-2000:]
        raise GoldenError(f"golden generation for {assignment.name} collected no graded tests "
                          f"or failed to collect:\n{detail}")
    stores, inputs = _manifest_from_run(assignment, result)
    for vis in VISIBILITIES:
        path = assignment.inputs_path(vis, base)
        path.parent.mkdir(parents=True, exist_ok=True)
        # key order kept as generated: a test may build names from its inputs' order
        path.write_text(json.dumps(inputs[vis], separators=(",", ":")) + "\n")
    if with_mutants:
        timeouts = {t: spec["timeout"] for s in stores.values() for t, spec in s["tests"].items()
                    if spec["timeout"]}
        plan = [t for s in stores.values() for t in s["tests"]]

        def run_mutant(mutant):
            with tempfile.TemporaryDirectory() as tmp:
                impl = materialize(assignment, mutant, Path(tmp))
                return run_tests(assignment, impl, "replay", plan, timeouts=timeouts,
                                 inputs_base=base)

        mutants = load_mutants(assignment)
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            results = list(pool.map(run_mutant, mutants))
        for mutant, res in zip(mutants, results):
            for vis, store in stores.items():
                values = _failing_values(assignment, store, inputs[vis], res)
                store["mutants"][mutant.name] = {"hint": mutant.hint,
                                                 "values": _kept_for_hints(values),
                                                 "fails": _failed_tests(store, res, values)}
    for vis, store in stores.items():
        path = assignment.goldens_path(vis, base)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(store, sort_keys=True, separators=(",", ":")) + "\n")
    return stores


def _failing_values(assignment: Assignment, store: dict, inputs: dict, res) -> dict:
    """A mutant's observed values that fail the golden ({test: {obs: value}}). A value that
    passes can never make a hint fire, so it is not kept; nor is a huge one (it would bloat
    the store), but its test still counts as failed (see _failed_tests)."""
    values: dict[str, dict] = {}
    for test_id, test in store["tests"].items():
        decoded = decode(inputs[test_id]) if test_id in inputs else None
        for obs in res.records[test_id].obs:
            spec = test["observations"].get(obs["name"])
            if spec is None or obs["name"] in values.get(test_id, {}):
                continue
            if judge(spec, obs["value"], decoded, assignment.checks, obs["name"]) is not None:
                values.setdefault(test_id, {})[obs["name"]] = obs["value"]
    return values


def _kept_for_hints(values: dict) -> dict:
    kept: dict[str, dict] = {}
    for test_id, observed in values.items():
        for name, value in observed.items():
            if len(json.dumps(value)) <= MAX_MUTANT_VALUE_CHARS:
                kept.setdefault(test_id, {})[name] = value
    return kept


def _failed_tests(store: dict, res, values: dict) -> list[str]:
    """The tests this mutant fails: a wrong value, a missing one, an exception or a timeout."""
    failed = []
    for test_id, test in store["tests"].items():
        rec = res.records[test_id]
        recorded = {o["name"] for o in rec.obs}
        if rec.status != "ended" or rec.outcome != "passed" or test_id in values \
                or not set(test["observations"]) <= recorded:
            failed.append(test_id)
    return failed


def stale_report(assignment: Assignment) -> list[str]:
    """Regenerate from solutions/ into a temp folder and compare with the committed stores,
    with the manifest's tolerances. Returns the differences (empty: fresh)."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        fresh = generate(assignment, Path(tmp), with_mutants=False)
        for vis in VISIBILITIES:
            committed = load_store(assignment, vis)
            new_inputs = json.loads(assignment.inputs_path(vis, Path(tmp)).read_text())
            if load_inputs(assignment, vis) != new_inputs:
                problems.append(f"{vis} inputs differ from what the generators produce now")
            old_tests, new_tests = committed["tests"], fresh[vis]["tests"]
            if old_tests.keys() != new_tests.keys():
                problems.append(f"{vis} test ids differ: committed {sorted(old_tests)} vs "
                                f"now {sorted(new_tests)}")
                continue
            for tid, new in new_tests.items():
                old = old_tests[tid]
                if {k: v for k, v in old.items() if k != "observations"} != \
                        {k: v for k, v in new.items() if k != "observations"}:
                    problems.append(f"{tid}: points/timeout/file changed")
                if old["observations"].keys() != new["observations"].keys():
                    problems.append(f"{tid}: observation names changed")
                    continue
                for name, spec in new["observations"].items():
                    ospec = old["observations"][name]
                    if any(ospec[k] != spec[k] for k in ("kind", "atol", "rtol", "check")):
                        problems.append(f"{tid}/{name}: kind or tolerance changed")
                    elif not _same_value(spec, ospec["expected"], spec["expected"]):
                        problems.append(f"{tid}/{name}: the solution's value changed")
    return problems


def _same_value(spec: dict, old, new) -> bool:
    from .compare import compare_close

    a, b = decode(old), decode(new)
    if spec["kind"] == "close":
        return compare_close(b, a, spec["atol"], spec["rtol"]) is None
    return plain_equal(a, b)
