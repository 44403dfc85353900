"""Hints fire in `check`: for values, for bugs that raise (class and place), for named checks'
failure tags; and for every mutant of the eight assignments that loses public points."""

import dataclasses
import shutil
import tempfile
from pathlib import Path

import pytest
from helpers import SOLUTION, grade_root

from autograder.assignments import load
from autograder.authoring.course_selftest import check_text, hint_problems, public_hint_problems
from autograder.authoring.goldens import generate
from autograder.authoring.mutants import load_mutants, materialize
from autograder.grading.judge import AssignmentGrade
from autograder.grading.store import GoldenStore, load_store

ASSIGNMENTS = ["minigrad", "ad_modes", "bpe", "dedup", "scaling", "ddp", "repro", "fusion"]
TOY = Path(__file__).parent / "toy_course"
RAISES_HINT = "add raises a ValueError subclass of its own on every call."
TAG_HINT = "order sorts descending (tagged by the check)."

# a mutant raising a non-builtin class (recorded as ValueError, its first builtin base), and a
# named check that tags "descending" whatever the ties' order
MUTANTS = f'''
[[mutants]]
name = "raises_own_class"
hint = "{RAISES_HINT}"
[[mutants.edits]]
file = "__init__.py"
old = "return a + b"
new = "class ShapeError(ValueError):\\n        pass\\n    raise ShapeError('matmul: mismatch')"
'''
CHECK = '''

def sorts_ascending_tagged(observed, ctx):
    message = sorts_ascending(observed, ctx)
    if message == "does not sort ascending":
        values = [ctx.inputs[i] for i in observed]
        if values == sorted(values, reverse=True):
            return ("descending", "sorts descending")
    return message
'''


@pytest.fixture(scope="module")
def hinted(tmp_path_factory):
    """The toy course with a raising mutant and a tagging check, goldens generated."""
    root = tmp_path_factory.mktemp("hinted") / "course"
    shutil.copytree(TOY, root)
    toml = root / "solutions" / "mutants" / "toy.toml"
    text = toml.read_text().replace("order sorts descending instead of ascending.", TAG_HINT)
    toml.write_text(text + MUTANTS)
    checks = root / "tests" / "toy" / "checks.py"
    checks.write_text(checks.read_text() + CHECK)
    order = root / "tests" / "toy" / "public" / "test_order.py"
    order.write_text(order.read_text().replace('check="sorts_ascending"',
                                               'check="sorts_ascending_tagged"'))
    generate(load("toy", root))
    return load("toy", root)




def graded(assignment, tmp_path, source, texts=None):
    """The toy graded with `source` as its package: {test id: result}; `check`'s rendered
    text appended to `texts` when given."""
    pkg = tmp_path / "sub" / "toy"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(source)
    grade = grade_root(assignment, tmp_path / "sub", visibilities=("public",))
    if texts is not None:
        texts.append(check_text(grade))
    return {t.id: t for t in grade.tests}


def test_goldens_record_the_raise_site_and_the_tag(hinted):
    store = load_store(hinted, "public")
    site = store.mutants["raises_own_class"].raises["test_add"]
    assert site == {"kind": "ValueError", "at": "sum[0]", "recorded": []}
    assert store.mutants["descending"].tags == {"test_order": {"order": "descending"}}
    again = GoldenStore.from_dict(store.to_dict())
    assert again.mutants["raises_own_class"].raises == store.mutants["raises_own_class"].raises


def test_a_builtin_raise_of_the_same_class_at_the_same_place_names_the_mutant(hinted, tmp_path):
    source = SOLUTION.replace("return a + b", "raise ValueError('shapes (2,3) and (2,3)')")
    texts = []
    test = graded(hinted, tmp_path, source, texts)["test_add"]
    assert not test.passed and RAISES_HINT in test.hints
    assert f"Hint: {RAISES_HINT}" in texts[0]


@pytest.mark.parametrize("new", [
    "raise TypeError('shapes')",  # another class
    # the same class, after the first value was recorded: another place
    "add.calls = getattr(add, 'calls', 0) + 1\n    if add.calls > 1:\n"
    "        raise ValueError('x')\n    return a + b",
])
def test_another_class_or_place_names_nothing(hinted, tmp_path, new):
    test = graded(hinted, tmp_path, SOLUTION.replace("return a + b", new))["test_add"]
    assert not test.passed and RAISES_HINT not in test.hints


def test_a_failure_tag_names_the_mutant_whatever_the_values(hinted, tmp_path):
    """Descending with ties in the other order: not the mutant's value, the mutant's tag."""
    source = SOLUTION.replace("key=lambda i: xs[i])", "key=lambda i: (-xs[i], -i))")
    texts = []
    test = graded(hinted, tmp_path, source, texts)["test_order"]
    assert not test.passed and test.hints == [TAG_HINT]
    assert f"Hint: {TAG_HINT}" in texts[0]


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_every_mutant_that_loses_public_points_is_named_by_check(name):
    """Replayed from the goldens through the grading's judge, hints and renderer (no sandbox):
    every mutant that fails a public test has its hint in `check`'s text, and no mutant fails
    hidden tests only (a student could never be told)."""
    problems = hint_problems(load(name))
    assert not problems, "\n".join(problems)


def test_the_replay_fails_a_raising_mutant_without_its_raise_site(monkeypatch):
    """The attack on the check above: with the raise sites gone, the handout's own example
    (ad_modes dot_vjp_missing_transpose raises on every rectangular input) is named nowhere."""
    import autograder.authoring.course_selftest as selftest

    def no_sites(assignment, vis, base=None):
        store = load_store(assignment, vis, base)
        return dataclasses.replace(store, mutants={
            k: dataclasses.replace(m, raises={}) for k, m in store.mutants.items()})

    monkeypatch.setattr(selftest, "load_store", no_sites)
    problems, _ = public_hint_problems(load("ad_modes"))
    assert any("dot_vjp_missing_transpose" in p for p in problems)


def test_check_text_of_a_real_run_names_the_raising_mutant():
    """A real sandboxed run of the handout's main example on one of its tests: the student
    sees the hint, not only the traceback."""
    assignment = load("ad_modes")
    mutant = next(m for m in load_mutants(assignment) if m.name == "dot_vjp_missing_transpose")
    with tempfile.TemporaryDirectory() as tmp:
        grade = grade_root(assignment, materialize(assignment, mutant, Path(tmp)),
                                      visibilities=("public",),
                                      ids=frozenset({"test_vjp_matches_torch"}))
    text = check_text(grade)
    assert "ValueError" in text and " ".join(mutant.hint.split()) in text
    assert isinstance(grade, AssignmentGrade) and grade.score == 0


def test_local_mode_names_the_tagged_mutant_too(hinted):
    """Under plain pytest (local mode) the per-observation hints include failure tags."""
    from autograder.grading.compare import decode_observed
    from autograder.grading.hints import ranked_hints
    from autograder.grading.store import load_inputs
    from autograder.harness.plaindata import encode

    store = load_store(hinted, "public")
    test = store.tests["test_order"]
    xs = load_inputs(hinted, "public")["test_order"]
    order = sorted(range(len(xs)), key=lambda i: (-xs[i], -i))  # not the mutant's value
    hints = ranked_hints(test, {"order": decode_observed(encode(order))}, {"order"},
                         store.mutants.values(), xs, hinted.checks,
                         pending=frozenset(test.observations) - {"order"})
    assert hints == [TAG_HINT]


def test_local_mode_judges_as_the_test_records(hinted):
    """judge_local (plain pytest, one observation at a time, the later ones left open): the
    message names the tagged mutant on the failing value."""
    from autograder.grading.local_pytest import judge_local
    from autograder.grading.store import load_inputs
    from autograder.harness.plaindata import encode

    xs = load_inputs(hinted, "public")["test_order"]
    order = sorted(range(len(xs)), key=lambda i: (-xs[i], -i))
    message = judge_local(hinted.tests_dir, "public", "test_order",
                          {"name": "order", "value": encode(order)})
    assert message is not None and TAG_HINT in message
