"""A point is earned only by work on inputs the student never had (SPEC §3, "Trusted inputs").

The public tests, their inputs and their goldens ship with the student release. Code that owns
its process can report those goldens instead of computing anything. Two such submissions, built
here for every assignment from the starter (which computes nothing) and an import-time hook:

- `replay`: every public test reports the published golden values of its observations and
  "passes" (pytest's failure cleared);
- `lookup`: a test reports the published goldens only when its inputs are the published ones
  (found by a digest of the inputs the child reads), as a lookup table keyed by input would.

`check` (the published inputs) gives both full public marks: the attack is real. `grade`
judges the public tests on the graded input set, so both earn nothing there, and the student is
told that the code is right only on the published inputs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from autograder.assignments import GRADED_INPUTS, discover
from autograder.grading.pipeline import PUBLISHED_ONLY, grade_submission_root
from autograder.grading.store import load_inputs, load_store

ASSIGNMENTS = {a.name: a for a in discover()}

HOOK = '''
"""Reports the published goldens from inside the child (an attack: see the test module)."""
import hashlib, json, sys

GOLDENS = json.loads(%(goldens)r)
BY_INPUT = json.loads(%(by_input)r)
MODE = %(mode)r


def _digest(data):
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def _install():
    plugin = sys.modules.get("autograder.harness.plugin")
    if plugin is None:
        return
    original = plugin.RecordingPlugin.finish
    if getattr(original, "_replayed", False):
        return

    def finish(self, item, spec):
        golden = GOLDENS.get(spec.id)
        if MODE == "lookup":
            golden = None
            path = (self.config.inputs or {}).get("public") if self.config else None
            if path:
                stored = self.load_inputs(__import__("pathlib").Path(path)).get(spec.id)
                golden = BY_INPUT.get(_digest(stored)) if stored is not None else None
        rec = self.recorders.get(item.nodeid)
        if golden is not None and rec is not None:
            rec.observations[:] = [dict(o) for o in golden]
            self.errors.pop(spec.id, None)
        original(self, item, spec)

    finish._replayed = True
    plugin.RecordingPlugin.finish = finish


_install()
'''


def _observations(store, test_id: str) -> list[dict]:
    return [{"name": name, "kind": o.kind, "value": o.expected, "atol": o.atol, "rtol": o.rtol,
             "check": o.check} for name, o in store.tests[test_id].observations.items()]


def _attack(assignment, mode: str, dest: Path) -> Path:
    """The starter package with the hook imported first, in dest/<package>."""
    public = load_store(assignment, "public")
    inputs = load_inputs(assignment, "public")
    goldens = {tid: _observations(public, tid) for tid in public.tests}
    by_input = {}
    for tid, data in inputs.items():
        digest = __import__("hashlib").sha256(json.dumps(data, sort_keys=True).encode())
        by_input[digest.hexdigest()] = goldens[tid]
    package = dest / assignment.package
    shutil.copytree(assignment.starter / assignment.package, package)
    (package / "_replay_hook.py").write_text(
        HOOK % {"goldens": json.dumps(goldens), "by_input": json.dumps(by_input),
                "mode": mode})
    init = package / "__init__.py"
    init.write_text("from . import _replay_hook  # noqa\n" + init.read_text())
    return dest


# A lookup by input reports the published goldens only where the inputs are the published ones,
# so wherever a replay earns nothing so does a lookup: the lookup runs on two cheap assignments.
CASES = [(name, "replay") for name in sorted(ASSIGNMENTS)] + [("minigrad", "lookup"),
                                                               ("dedup", "lookup")]


@pytest.mark.parametrize(("name", "mode"), CASES)
def test_published_goldens_earn_nothing(name: str, mode: str, tmp_path: Path) -> None:
    assignment = ASSIGNMENTS[name]
    root = _attack(assignment, mode, tmp_path / "sub")
    checked = grade_submission_root(assignment, root, ("public",))
    assert checked.score == checked.max_score > 0, \
        f"the attack must pass the published inputs: {[t.message for t in checked.tests][:3]}"
    graded = grade_submission_root(assignment, root)
    public = [t for t in graded.tests if t.visibility == "public"]
    earned = [(t.id, t.points) for t in graded.tests if t.points > 0]
    assert earned == [], f"{mode} of the published goldens earned points in grade: {earned}"
    told = [t for t in public if t.max_points > 0 and t.message == PUBLISHED_ONLY]
    assert told, "the student is told the code is right only on the published inputs"


# Public tests whose answer is the job's structure, not its inputs: the published goldens pass
# them on any input set, so they carry 0 points in grade (their task keeps its other tests).
VERDICTS = {
    ("ddp", "test_whole_job_joins"): "a 2 x 2 job's ranks, world size and group are what "
                                     "SPEC 5.6 fixes for the public test",
}


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS))
def test_graded_set_is_fresh_and_complete(name: str) -> None:
    """Every public test has a graded twin on inputs that differ from the published ones,
    worth the same points, in the same task (but the few VERDICTS, worth 0 in grade)."""
    assignment = ASSIGNMENTS[name]
    public, graded = load_store(assignment, "public"), load_store(assignment, GRADED_INPUTS)
    assert graded.tests.keys() == public.tests.keys()
    assert graded.seed_salt
    published, fresh = load_inputs(assignment, "public"), load_inputs(assignment, GRADED_INPUTS)
    for tid, spec in public.tests.items():
        twin = graded.tests[tid]
        points = 0.0 if (name, tid) in VERDICTS else spec.points
        assert (twin.points, twin.task) == (points, spec.task), tid
        assert tid in fresh and fresh[tid] != published.get(tid), f"{tid}: no fresh inputs"
