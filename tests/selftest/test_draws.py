"""A point is earned only by work on inputs drawn for that grading alone (SPEC §3, "Trusted
inputs, single-use secrets").

The public tests, their inputs and their goldens ship with the student release, and whatever a
grading's child sees may leak out of it through the kernel (a shared page cache, timing). Code
that owns its process can report what it learned instead of computing anything. The attacks,
built here from the starter (which computes nothing) and an import-time hook:

- `replay`: every public test reports the published golden values and "passes";
- `lookup`: a test reports the published goldens only when its inputs are the published ones
  (a lookup table keyed by a digest of the inputs the child reads);
- the two-stage attack: stage one learns a grading's whole draw (inputs and expected values,
  public and hidden: here straight from the grader, the best any channel could do), stage two
  submits a lookup table of it, or replays it.

`check` (the published inputs) gives the first two full public marks: the attack is real; so
does the table on the draw it was made from. `grade` judges every test on a draw of its own
submission, so all of them earn nothing there, and the student is told when the code is right
only on the published inputs.
"""

from __future__ import annotations

import base64
import json
import shutil
import zlib
from pathlib import Path

import pytest
from helpers import SOLUTION, draw_of, grade_root, submission

from autograder.assignments import VISIBILITIES, discover
from autograder.grading import draws
from autograder.grading.pipeline import PUBLISHED_ONLY
from autograder.grading.store import load_inputs, load_store
from autograder.sandbox import SandboxPolicy

ASSIGNMENTS = {a.name: a for a in discover()}

HOOK = '''
"""Reports the published goldens from inside the child (an attack: see the test module)."""
import hashlib, json, sys

import base64, zlib

GOLDENS = json.loads(zlib.decompress(base64.b64decode(%(goldens)r)))  # test id -> observations
BY_INPUT = json.loads(zlib.decompress(base64.b64decode(%(by_input)r)))  # inputs' digest -> same
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
            for path in (self.config.inputs or {}).values() if self.config else ():
                stored = self.load_inputs(__import__("pathlib").Path(path)).get(spec.id)
                golden = golden or (BY_INPUT.get(_digest(stored)) if stored is not None
                                    else None)
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


def _attack(assignment, mode: str, dest: Path, stores: dict | None = None,
            inputs: dict | None = None) -> Path:
    """The starter package with the hook imported first, in dest/<package>: it knows the
    expected values of `stores` and the inputs they belong to (by visibility; default: the
    published public set)."""
    stores = stores or {"public": load_store(assignment, "public")}
    inputs = inputs or {"public": load_inputs(assignment, "public")}
    goldens, by_input = {}, {}
    for vis, store in stores.items():
        for tid in store.tests:
            goldens[tid] = _observations(store, tid)
            if tid in inputs.get(vis, {}):
                data = json.dumps(inputs[vis][tid], sort_keys=True).encode()
                by_input[__import__("hashlib").sha256(data).hexdigest()] = goldens[tid]
    package = dest / assignment.package
    shutil.copytree(assignment.starter / assignment.package, package)
    def packed(data) -> str:  # a whole draw's table fits intake's file size limit
        return base64.b64encode(zlib.compress(json.dumps(data).encode(), 9)).decode()

    (package / "_replay_hook.py").write_text(
        HOOK % {"goldens": packed(goldens), "by_input": packed(by_input), "mode": mode})
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
    checked = grade_root(assignment, root, ("public",))
    assert checked.score == checked.max_score > 0, \
        f"the attack must pass the published inputs: {[t.message for t in checked.tests][:3]}"
    graded = grade_root(assignment, root)
    public = [t for t in graded.tests if t.visibility == "public"]
    earned = [(t.id, t.points) for t in graded.tests if t.points > 0]
    assert earned == [], f"{mode} of the published goldens earned points in grade: {earned}"
    told = [t for t in public if t.max_points > 0 and t.message == PUBLISHED_ONLY]
    assert told, "the student is told the code is right only on the published inputs"


def _learned(assignment, stage_one: Path) -> draws.Draw:
    """Stage one of the two-stage attack: everything a grading of `stage_one` judges on, its
    inputs and expected values (public and hidden), as if every channel had leaked."""
    return draw_of(assignment, stage_one)


@pytest.mark.parametrize(("name", "mode"), [("minigrad", "lookup"), ("dedup", "lookup"),
                                            ("scaling", "replay")])
def test_a_learned_draw_earns_nothing(name: str, mode: str, tmp_path: Path, monkeypatch) -> None:
    """Stage two submits a lookup table (or a replay) of the draw stage one learned: it would
    earn the draw's points if the draw were shared, and earns nothing on its own."""
    assignment = ASSIGNMENTS[name]
    learned = _learned(assignment, assignment.starter)
    root = _attack(assignment, mode, tmp_path / "sub", learned.stores, learned.inputs)
    graded = grade_root(assignment, root)
    earned = [(t.id, t.points) for t in graded.tests if t.points > 0]
    assert graded.max_score > 0 and earned == [], f"a learned draw earned points: {earned}"
    # the table is right: on the draw it was learned from (a draw shared by the course), it
    # earns every test stage one's grading counted
    monkeypatch.setattr(draws, "draw_salt", lambda *args: learned.salt)
    shared = grade_root(assignment, root)
    assert shared.score == shared.max_score > 0, [t.id for t in shared.tests if not t.passed]


def test_a_draw_is_the_submissions_own(tmp_path: Path) -> None:
    """The same package gets the same draw (a regrade reproduces its grade); one byte more,
    another draw, with other inputs."""
    assignment = ASSIGNMENTS["minigrad"]
    secret = load_store(assignment, "hidden").draw_secret
    package = tmp_path / "a" / assignment.package
    shutil.copytree(assignment.starter / assignment.package, package)
    first = draws.package_digest(package)
    assert draws.package_digest(package) == first
    assert draws.draw_salt(secret, assignment, first) == draws.draw_salt(secret, assignment, first)
    (package / "engine.py").write_text((package / "engine.py").read_text() + "\n")
    changed = draws.package_digest(package)
    assert changed != first
    assert draws.draw_salt(secret, assignment, changed) != draws.draw_salt(secret, assignment,
                                                                          first)
    one = draw_of(assignment, tmp_path / "a")
    shutil.copytree(assignment.starter / assignment.package, tmp_path / "b" / assignment.package)
    other = draw_of(assignment, tmp_path / "b")
    again = draw_of(assignment, tmp_path / "a")
    assert one.inputs == again.inputs and one.stores == again.stores
    moved = [tid for tid in one.inputs["public"] if one.inputs["public"][tid] !=
             other.inputs["public"].get(tid)]
    assert len(moved) == len(one.inputs["public"]) > 0


def test_without_a_way_to_keep_the_draw_the_graded_tests_are_refused(toy, tmp_path) -> None:
    """Where the child could read the draw's expected values (no namespaces layer, no uid of
    its own), `grade` runs no graded test: each fails with the reason, none is judged on the
    published inputs (there is no fallback), and results.json says so."""
    from autograder.grading.report import results_json
    from autograder.markers import without_markers

    package = tmp_path / "sub" / "toy"
    shutil.copytree(toy.solutions / "toy", package)
    init = package / "__init__.py"
    init.write_text(without_markers(init.read_text()))
    policy = SandboxPolicy(disabled=frozenset({"namespaces", "user"}))
    graded = grade_root(toy, tmp_path / "sub", policy=policy)
    assert graded.score == 0 and graded.max_score > 0
    assert all("NOT RUN" in t.message for t in graded.tests if t.max_points > 0), \
        [t.message for t in graded.tests]
    shown = json.dumps(results_json([graded], 0.0))
    assert "graded tests NOT RUN" in shown and PUBLISHED_ONLY not in shown
    checked = grade_root(toy, tmp_path / "sub", ("public",), policy=policy)
    assert checked.score == checked.max_score > 0  # check runs the published inputs as before


# Tests that are the same on every draw: their inputs ignore the seed, or their answer is the
# job's structure, not its inputs. Learned once, they replay anywhere, so they carry 0 points in
# grade (their task keeps its other tests); `check` counts them.
FIXED = {
    ("ddp", "test_whole_job_joins"): "a 2 x 2 job's ranks, world size and group are what "
                                     "SPEC 5.6 fixes for the public test",
    ("minigrad", "test_order_of_a_leaf"): "the order of a lone leaf is [leaf]",
    ("ad_modes", "test_cheaper_mode_hidden"): "six named (n, m) pairs: forward or reverse",
    ("scaling", "test_inference_target_not_above_E_hidden"): "raises ValueError at or below E",
    ("scaling", "test_isoflop_too_few_sizes_hidden"): "raises ValueError for a budget of < 3 "
                                                      "sizes",
    ("scaling", "test_published_models_hidden"): "published models' parameter counts (facts)",
    ("repro", "test_settings_inside_hidden"): "inside the block the settings are the mode's, "
                                              "whatever the prior state",
}


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS))
def test_every_test_but_the_fixed_ones_is_drawn(name: str) -> None:
    """The golden stores mark exactly the FIXED tests as the same on every draw, and the hidden
    store holds the draw secret."""
    assignment = ASSIGNMENTS[name]
    stores = {v: load_store(assignment, v) for v in VISIBILITIES}
    assert len(stores["hidden"].draw_secret) >= 32 and not stores["public"].draw_secret
    fixed = {(name, tid) for store in stores.values() for tid, t in store.tests.items()
             if t.fixed}
    assert fixed == {k for k in FIXED if k[0] == name}


def test_only_the_references_run_folder_holds_golden_time_code() -> None:
    """bpe's common.py holds a task's answer (the merge step) for its generators: a child that
    runs a submission gets it stubbed, the reference's own run on a draw gets it whole."""
    from autograder.backends.run_folder import prepare_run_dir
    from autograder.markers import BEGIN

    bpe = ASSIGNMENTS["bpe"]
    assert BEGIN in bpe.common_module.read_text()
    seen = {}
    for gen in (False, True):
        run = prepare_run_dir(bpe, bpe.solutions, ("public",), None, gen)
        seen[gen] = (run / "tests" / "common.py").read_text()
        shutil.rmtree(run)
    assert "out.append(word[i] + word[i + 1])" in seen[True]
    assert "out.append(word[i] + word[i + 1])" not in seen[False]
    assert "raise NotImplementedError" in seen[False]


def test_a_mutant_a_passing_test_rules_out_names_nothing(toy_env, tmp_path) -> None:
    """The runs on the published inputs that give a grading its hints include the passing tests
    a candidate mutant fails, so a mutant the student's passing test contradicts is not named
    (hints.py's rule), as in a check. Here a mutant that subtracts in add AND sorts descending:
    a student who only subtracts fails test_add exactly as it does, but passes test_order."""
    from autograder.assignments import load
    from autograder.authoring.goldens import generate

    mutants = toy_env / "solutions" / "mutants" / "toy.toml"
    mutants.write_text(mutants.read_text() + '''
[[mutants]]
name = "subtracts_and_descends"
hint = "add subtracts AND order sorts descending."
[[mutants.edits]]
file = "__init__.py"
old = "return a + b"
new = "return a - b"
[[mutants.edits]]
file = "__init__.py"
old = "key=lambda i: xs[i])"
new = "key=lambda i: -xs[i])"
''')
    toy = load("toy", toy_env)
    generate(toy, timed=False)
    root = submission(tmp_path, SOLUTION.replace("return a + b", "return a - b"))
    checked = {t.id: t for t in grade_root(toy, root, ("public",)).tests}
    graded = {t.id: t for t in grade_root(toy, root).tests}
    assert checked["test_order"].passed and graded["test_order"].passed
    for result in (checked["test_add"], graded["test_add"]):
        assert not result.passed
        assert result.hints == ["add subtracts: the sign of the second operand is flipped."]


def test_too_slow_on_the_draw_is_told_as_such(toy, tmp_path) -> None:
    """Code right on the published inputs that runs into its limit on the draw's is told it ran
    past its time limit there (how that run ended is all it shows of it), not that it is right
    only on the published inputs: a student who hard-codes nothing is not told so."""
    from autograder.backends.base import Status
    from autograder.grading.pipeline import PUBLISHED_ONLY_UNFINISHED
    from autograder.harness.plaindata import decode

    published = [tuple(pair) for pair in decode(load_inputs(toy, "public")["test_add"])]
    slow = SOLUTION.replace("    return a + b", f"""    if (a, b) not in {published!r}:
        while True:
            pass
    return a + b""")
    root = submission(tmp_path, slow)
    checked = {t.id: t for t in grade_root(toy, root, ("public",)).tests}
    assert checked["test_add"].passed
    graded = {t.id: t for t in grade_root(toy, root).tests}
    assert not graded["test_add"].passed
    assert graded["test_add"].message == PUBLISHED_ONLY_UNFINISHED[Status.TIMEOUT]
    assert graded["test_order"].passed


def test_goldens_without_a_draw_secret_are_one_line(toy_env, tmp_path, capsys) -> None:
    """Goldens made before draws existed (no draw secret): `grade` says to regenerate them, in
    one line and a nonzero exit, with no traceback."""
    from autograder import cli

    hidden = toy_env / "tests" / "toy" / "goldens" / "hidden.json"
    data = json.loads(hidden.read_text())
    data.pop("draw_secret", None)
    hidden.write_text(json.dumps(data))
    root = submission(tmp_path, SOLUTION)
    status = cli.main(["grade", str(root), "--assignment", "toy", "--out", str(tmp_path / "out")])
    out = capsys.readouterr()
    assert status != 0 and "Traceback" not in out.err + out.out
    assert "make goldens ONLY=toy" in out.err + out.out


def test_a_test_the_reference_cannot_answer_on_the_draw_counts_for_nothing(toy_env,
                                                                           tmp_path) -> None:
    """Where the reference solution fails a test on a grading's draw, that test carries no
    points in that grading (the student sees only that it was not graded this time), and why is
    in instructor.json alone, under "unavailable"."""
    from autograder.assignments import load
    from autograder.grading.pipeline import NOT_GRADED
    from autograder.grading.report import display_name, instructor_json, results_json
    from autograder.harness.plaindata import decode

    toy = load("toy", toy_env)
    published = [tuple(pair) for pair in decode(load_inputs(toy, "public")["test_add"])]
    reference = toy_env / "solutions" / "toy" / "__init__.py"
    reference.write_text(reference.read_text().replace("    return a + b", f"""    if (a, b) not in {published!r}:
        raise ArithmeticError("the reference knows only the published pairs")
    return a + b"""))
    grade = grade_root(toy, submission(tmp_path, SOLUTION))
    by_id = {t.id: t for t in grade.tests}
    assert by_id["test_add"].max_points == 0 and by_id["test_add"].message.startswith(NOT_GRADED)
    assert by_id["test_order"].passed and by_id["test_order"].max_points > 0
    why = instructor_json([grade])["unavailable"]
    assert list(why) == [display_name(by_id["test_add"])]
    assert "ArithmeticError" in why[display_name(by_id["test_add"])]
    assert "ArithmeticError" not in json.dumps(results_json([grade], 0.0))
