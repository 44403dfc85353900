"""The results contract: results.json carries machine fields in each test's
extra_data, autograder/grading/results.py reads them once, and nothing downstream parses display text.
"""

from __future__ import annotations

import ast
import json
import time
from pathlib import Path

import jsonschema
import pytest

from autograder.backends.causes import Cause, Reason
from autograder.classroom.class_report import class_report
from autograder.classroom.gradebook import write_canvas, write_gradebook
from autograder.classroom.similarity import Scan
from autograder.grading import judge as grading
from autograder.grading import report
from autograder.grading.judge import AssignmentGrade, all_failed
from autograder.grading.judge import TestResult as Result
from autograder.grading.report import SCHEMA_PATH, instructor_json, results_json
from autograder.grading.results import ResultsError, read_results

ENGINE = Path(__file__).resolve().parents[2] / "autograder"
WRITERS = {"report.py"}  # the display text's one author
# words of the display text: a reader that splits, searches or strips on them parses it
DISPLAY_WORDS = ("·", "Hint:", "not run")
PARSING_METHODS = {"split", "rsplit", "partition", "rpartition", "startswith", "endswith",
                   "removeprefix", "removesuffix", "find", "rfind", "index", "rindex", "count"}
HINT = "mean divides by n - 1: that is the sample variance's correction"
HIDDEN_HINT = "order reversed: the sort key is negated"


def _display_parsing(tree: ast.AST) -> list[int]:
    """Line numbers where a display word is used to take text apart."""
    def has_word(node: ast.AST) -> bool:
        return any(isinstance(n, ast.Constant) and isinstance(n.value, str)
                   and any(w in n.value for w in DISPLAY_WORDS) for n in ast.walk(node))

    lines = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in PARSING_METHODS and any(map(has_word, node.args))):
            lines.append(node.lineno)
        elif (isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn)
                                                    for op in node.ops) and has_word(node.left)):
            lines.append(node.lineno)
    return lines


def test_no_engine_module_parses_display_text():
    """Only report.py words the display text, and no module takes it apart again."""
    found = {str(p.relative_to(ENGINE)): lines for p in sorted(ENGINE.rglob("*.py"))
             if p.name not in WRITERS
             and (lines := _display_parsing(ast.parse(p.read_text(encoding="utf-8"))))}
    assert not found, f"display strings parsed (read results.py's fields instead): {found}"


def test_the_lint_finds_each_old_parse():
    """The patterns gradebook, class_report and bulk used before the contract."""
    for old in ('parts = str(t.get("name", "")).split(" · ")',
                'hints = {line[6:] for line in out.splitlines() if line.startswith("Hint: ")}',
                'ok = all(t["output"].startswith("not run: ") for t in tests)',
                'why = t["output"].removeprefix("not run: ")',
                'x = "Hint:" in line'):
        assert _display_parsing(ast.parse(old)), old


def _grades(toy) -> list[AssignmentGrade]:
    """Three students' worth of toy grades: hints public and hidden, a pass, and no task."""
    tests = [
        Result("toy", "test_add", "test_basic.py", "public", 2.0, True, task=1,
               task_title="add"),
        Result("toy", "test_mean", "test_basic.py", "public", 3.0, False,
               "mean: expected 1, got 2", [HINT], task=2, task_title="add and mean"),
        Result("toy", "test_order", "test_more.py", "hidden", 2.0, False,
               "Hidden test failed.", [HIDDEN_HINT], task=2, task_title="add and mean"),
        Result("toy", "test_misc", "test_misc.py", "public", 1.0, False, "misc: wrong"),
    ]
    return [AssignmentGrade(toy, tests)]


def _run(grades) -> dict:
    return {**results_json(grades, 1.0), "instructor": instructor_json(grades)}


def _outputs(toy, tmp_path: Path, tag: str) -> tuple[str, str, str]:
    """grades.csv, canvas.csv and the class report's Markdown for a graded, a rejected and a
    second graded student, all read back through read_results."""
    rejected = all_failed(toy, ("public", "hidden"),
                          [Reason(Cause.NOT_A_SUBMISSION, detail="no package toy in the submission")],
                          [], time.monotonic())
    runs = {"alice": read_results(_run(_grades(toy))), "bob": read_results(_run([rejected]))}
    out = tmp_path / tag
    out.mkdir()
    write_gradebook(runs, {}, [toy], out / "grades.csv")
    write_canvas(runs, {}, [toy], out / "canvas.csv")
    md = class_report(runs, {}, ["alice", "bob"], [toy], Scan([])).markdown()
    return (out / "grades.csv").read_text(), (out / "canvas.csv").read_text(), md


def test_display_wording_does_not_change_the_class_outputs(toy, tmp_path, monkeypatch):
    """Rewording report.py (name separator, hint prefix, not-run prefix) changes results.json's
    text but not one byte of grades.csv, canvas.csv or the class report."""
    before = _outputs(toy, tmp_path, "before")
    assert "1 student: " + HINT in before[2] and HIDDEN_HINT in before[2]
    assert "no package toy in the submission" in before[2]  # bob's rejection
    monkeypatch.setattr(report, "NAME_SEP", " / ")
    monkeypatch.setattr(report, "HINT_PREFIX", "Tip → ")
    monkeypatch.setattr(grading, "NOT_RUN", "skipped because ")
    shown = json.dumps(_run(_grades(toy)), ensure_ascii=False)
    assert "Tip → " in shown and "toy / Task 2" in shown  # the wording did change
    assert _outputs(toy, tmp_path, "after") == before


def test_machine_fields_validate_and_round_trip(toy):
    results = results_json(_grades(toy), 1.0)
    jsonschema.validate(results, json.loads(SCHEMA_PATH.read_text()))
    run = read_results(json.dumps({**results, "instructor": instructor_json(_grades(toy))})
                       .encode())
    mean, order, misc = run.tests[1], run.tests[2], run.tests[3]
    assert (mean.assignment, mean.task, mean.test_id, mean.visibility, mean.hints) == (
        "toy", 2, "test_mean", "public", (HINT,))
    assert order.visibility == "hidden" and order.hints == ()  # never shown in results.json
    assert HIDDEN_HINT not in json.dumps(results)
    assert run.misconceptions() == {HINT, HIDDEN_HINT}  # the hidden one from instructor.json
    assert misc.task is None and misc.task_label == "Other tests"
    assert run.rejection() == [] and run.score == 2.0 and run.max_score == 8.0


def _forged(toy, change) -> dict:
    results = results_json(_grades(toy), 1.0)
    change(results["tests"][0])
    return results


@pytest.mark.parametrize("change, says", [
    (lambda t: t.pop("extra_data"), "no machine fields"),
    (lambda t: t["extra_data"]["autograder"].update(version=0), "no machine fields"),
    (lambda t: t.update(score=99), "outside"),
    (lambda t: t.update(score=float("nan")), "finite"),
    (lambda t: t["extra_data"]["autograder"].update(visibility="secret"), "visibility"),
    (lambda t: t.update(visibility="after_published"), "visibility"),  # public fields, hidden test
    (lambda t: t.update(visibility=["visible"]), "visibility"),  # unhashable: no TypeError
    (lambda t: t.update(name=None), "name"),
    (lambda t: t["extra_data"]["autograder"].update(hints="x"), "hints"),
    (lambda t: t["extra_data"]["autograder"].update(task="2"), "task"),
    (lambda t: t.update(status="maybe"), "status"),
], ids=["no-extra", "old-version", "score-above-max", "nan", "bad-visibility",
        "visibility-mismatch", "visibility-list", "name-null", "hints-not-list", "task-not-int", "bad-status"])
def test_a_malformed_file_is_one_clear_error(toy, change, says):
    with pytest.raises(ResultsError, match=says) as e:
        read_results(_forged(toy, change))
    assert "\n" not in str(e.value)


def test_unreadable_sources_are_one_clear_error(tmp_path):
    for source, says in ((b"{", "not JSON"), (b"[]", "list of tests"),
                         (b'{"tests": [1]}', "tests\\[0\\] is not an object"),
                         (tmp_path / "missing.json", "cannot be read"),
                         (b"[" * 100000 + b"]" * 100000, "not JSON")):
        with pytest.raises(ResultsError, match=says):
            read_results(source)


def test_files_read_back_from_disk_are_decoded_once_or_refused(toy, tmp_path):
    """A resumed student's stored results.json (bulk._stored) and a previous run's
    (bulk_compare.previous_results) enter through read_results: a file without machine fields
    (an older grader's, or a forged one) is regraded or skipped, never half-read."""
    from autograder.classroom.bulk import _stored
    from autograder.classroom.regrade import previous_results

    good = results_json(_grades(toy), 1.0)
    old = json.loads(json.dumps(good))
    for t in old["tests"]:
        del t["extra_data"]
    for student, results in (("alice", good), ("bob", old)):
        folder = tmp_path / student
        folder.mkdir()
        (folder / "grading.json").write_text(json.dumps({"key": "k"}))
        (folder / "results.json").write_text(json.dumps(results))
    stored = _stored(tmp_path / "alice", "k")
    assert stored is not None and stored[1].misconceptions() == {HINT}
    assert _stored(tmp_path / "alice", "other key") is None
    assert _stored(tmp_path / "bob", "k") is None  # regraded
    assert set(previous_results(tmp_path)) == {"alice"}


# What the child reports is decoded once, where it enters the parent.
# Every plaindata.decode in grading/: (file, function, argument). The golden store's values
# (inputs, expected, mutant values) are trusted and decoded where they are compared; the
# child's observations only in compare.decode_observed (which compare.observations applies to
# a whole test record).
STORE_DECODES = {("judge.py", "_judged", "inputs_data"),
                 # a draw's inputs, from the reference's own gen run (trusted, like a store's)
                 ("draws.py", "_rejected_by_its_check", "inputs"),
                 ("judge.py", "_missing_message", "spec.observations[first].expected"),
                 ("local_pytest.py", "judge_local", "inputs_store[test_id]"),
                 ("compare.py", "check_tag", "spec.expected"),
                 ("compare.py", "judge_value", "spec.expected"),
                 ("hints.py", "_tiny", "spec.expected"),
                 ("hints.py", "_agrees", "mutant_data"),
                 ("hints.py", "_relatively_equal", "spec.expected")}
CHILD_DECODE = ("compare.py", "decode_observed", "data")


def _decode_sites(file: str, tree: ast.AST) -> set[tuple[str, str, str]]:
    """(file, enclosing function, argument's source) of each call of plaindata.decode."""
    names, modules = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (node.module or "").endswith("plaindata") and alias.name == "decode":
                    names.add(alias.asname or alias.name)
                elif alias.name == "plaindata":
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules |= {a.asname or a.name for a in node.names if a.name.endswith("plaindata")}
    sites = set()

    def visit(node: ast.AST, function: str) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            function = getattr(node, "name", function)
        if isinstance(node, ast.Call) and (
                (isinstance(node.func, ast.Name) and node.func.id in names)
                or (isinstance(node.func, ast.Attribute) and node.func.attr == "decode"
                    and ast.unparse(node.func.value) in modules)):
            sites.add((file, function, ", ".join(ast.unparse(a) for a in node.args)))
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(tree, "<module>")
    return sites


def test_child_data_is_decoded_in_one_function_only():
    """The parent decodes an observation the child reported once, in compare.decode_observed:
    judge, hints and tags take the decoded value. Any other decode in grading/ is of the
    trusted store's values, listed in STORE_DECODES."""
    found = set().union(*(_decode_sites(p.name, ast.parse(p.read_text(encoding="utf-8")))
                          for p in sorted((ENGINE / "grading").glob("*.py"))))
    assert CHILD_DECODE in found
    assert found - STORE_DECODES == {CHILD_DECODE}, (
        "plaindata.decode outside compare.decode_observed: decode child data there (a test "
        "record's: compare.observations) and pass the decoded value; a trusted store value's "
        f"decode belongs in STORE_DECODES: {sorted(found - STORE_DECODES - {CHILD_DECODE})}")


def test_the_decode_lint_finds_a_second_decode_site():
    """A second decode site: a compare.judge_observation that decodes the observation itself."""
    old = '''
from ..harness.plaindata import PlainDataError, decode
def judge_observation(spec, observed_data, inputs, checks, name):
    try:
        observed = decode(observed_data)
    except (PlainDataError, RecursionError) as e:
        return f"malformed observation ({e})"
'''
    assert _decode_sites("compare.py", ast.parse(old)) == {("compare.py",
                                                            "judge_observation",
                                                            "observed_data")}
    via_module = "from ..harness import plaindata as pd\ndef f(rec):\n    return pd.decode(rec)\n"
    assert _decode_sites("x.py", ast.parse(via_module)) == {("x.py", "f", "rec")}


@pytest.mark.parametrize("bad, reason", [({"__float__": "bogus"}, "bad float marker"),
                                         ({"__set__": 1}, "bad set"),
                                         ({"__nope__": 1}, "unknown marker")])
def test_a_malformed_observation_fails_with_its_reason_and_names_no_mutant(bad, reason):
    """Judged from the test record as the child reported it: a malformed value fails with
    the message of that reason and is not recorded for hints, though a mutant records None there (a
    malformed value read as None would name it); the first record of a name wins."""
    from types import SimpleNamespace

    from autograder.backends.base import TestRecord
    from autograder.grading.compare import decode_observed, judge_observation
    from autograder.grading.hints import ranked_hints
    from autograder.grading.store import GoldenStore, MutantValues, ObservationSpec, TestSpec

    golden = {"x": ObservationSpec("exact", expected=1), "y": ObservationSpec("exact", expected=2)}
    spec = TestSpec("t", 1.0, None, "test_t.py", golden, 1, "t")
    store = GoldenStore("a", "public", {"t": spec},
                        {"none": MutantValues("none", "x is None", {"t": {"x": None}}, ("t",))})
    assignment = SimpleNamespace(name="a", package="a", checks=None, returns=())

    def judged(*obs):
        rec = TestRecord("t", "ended", "passed", obs=[{"name": n, "value": v} for n, v in obs])
        return grading.judge_run(assignment, store, [(spec, None, rec)])[0]

    assert judged(("x", None), ("y", 2)).hints == ["x is None"]  # the hint can fire
    result = judged(("x", bad), ("y", 2), ("x", 1))
    assert not result.passed and result.hints == []
    assert result.message == f"x: malformed observation ({reason})"
    assert judged(("x", 1), ("y", 2), ("x", bad)).passed
    observed = decode_observed(bad)  # local mode: one observation at a time
    assert judge_observation(golden["x"], observed, None, None, "x") == f"malformed observation ({reason})"
    assert ranked_hints(spec, {"x": observed}, {"x"}, store.mutants.values(), None, None,
                        pending=frozenset({"y"})) == []
