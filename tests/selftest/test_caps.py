"""What a submission can make the grader write: capped (events, collection errors, messages,
report text), valid UTF-8 whatever the file names, and nothing of a hidden comparison.

Floods are toy submissions that write straight into their events file (the child owns its
process, SPEC §3). Each must leave results.json under REPORT_BOUND and let the grader finish
well inside the toy's run limit; the cut is said in the report.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest
from helpers import SOLUTION, submission

from autograder import cli
from autograder.assignments import load
from autograder.classroom.class_report import misconceptions
from autograder.grading.judge import AssignmentGrade, capped
from autograder.grading.judge import TestResult as Result
from autograder.grading.report import instructor_json, results_json
from autograder.grading.results import read_results
from autograder.grading.safe_text import clean, name, utf8_json, visible

FULL = 7
REPORT_BOUND = 2**20  # results.json per assignment (docs/SECURITY.md)
# Wall seconds a flooded grading may take: ~10 s at load 24 on 2 cores; before the caps, the
# collection-error flood was still running after 600 s. (toy_env: 120 s per-test timeouts, so
# a loaded machine costs no points.)
FLOOD_SECONDS = 120
# writes the events file from inside the child; BODY builds the lines to write
FLOOD = '''
import json, sys
def _flood():
    try:
        path = json.load(open(sys.argv[1]))["events"]
    except Exception:
        return
    with open(path, "a") as f:
        for line in BODY:
            f.write(line + "\\n")
'''
FLOODS = {
    # 20,000 distinct collection errors of 1,500 characters (a 28 MiB results.json without the caps)
    "collection_errors": "BODY = (json.dumps({'ev': 'collect_error', 'file': f'test_{i}.py', "
                         "'error': f'{i} ' + 'E' * 1500}) for i in range(20000))\n_flood()\n",
    # 300,000 observations on one test (a 12 MB line) and 60,000 on another
    "observations": "BODY = [json.dumps({'ev': 'end', 'id': 'test_add', 'outcome': 'failed', "
                    "'obs': [{'name': f'sum[{i}]', 'value': i} for i in range(300000)]}), "
                    "json.dumps({'ev': 'end', 'id': 'test_order', 'outcome': 'failed', "
                    "'obs': [{'name': f'o{i}', 'value': 'x' * 50} for i in range(60000)]})]\n"
                    "_flood()\n",
    # 5 MB error texts, error types and locations on every test, public and hidden
    "huge_messages": "BODY = [json.dumps({'ev': 'end', 'id': t, 'outcome': 'failed', "
                     "'error': 'M' * 5_000_000, 'error_type': 'T' * 5_000_000, "
                     "'where': {'file': 'F' * 5_000_000, 'line': 1, 'function': 'f' * 99}}) "
                     "for t in ('test_add', 'test_mean_of_nothing', 'test_order', 'test_mean')]"
                     "\n_flood()\n",
    # 2,000 invented tests, started and ended (under the events cap: the real tests count)
    "many_tests": "BODY = (json.dumps({'ev': ev, 'id': f'test_{i}', 'outcome': 'passed'}) "
                  "for i in range(2000) for ev in ('start', 'end'))\n_flood()\n",
    # 100,000 invented tests: over the cap, cut
    "too_many_tests": "BODY = (json.dumps({'ev': ev, 'id': f'test_{i}', 'outcome': 'passed'}) "
                      "for i in range(100000) for ev in ('start', 'end'))\n_flood()\n",
}



def grade_cli(sub: Path, out: Path, capsys, *more: str) -> tuple[dict, bytes, str, float]:
    """`grade SUB --out OUT`: (results.json parsed strictly, its bytes, the terminal, seconds)."""
    started = time.monotonic()
    assert cli.main(["grade", str(sub), "--out", str(out), *more]) == 0
    seconds = time.monotonic() - started
    raw = (out / "results.json").read_bytes()
    shown = capsys.readouterr()
    terminal = shown.out + shown.err
    terminal.encode("utf-8")  # strict: a lone surrogate raises here
    return json.loads(raw.decode("utf-8")), raw, terminal, seconds


@pytest.mark.parametrize("flood", sorted(FLOODS))
def test_flood_is_capped_in_size_and_time(flood, toy_env, tmp_path, capsys):
    source = FLOOD + FLOODS[flood] + SOLUTION
    results, raw, terminal, seconds = grade_cli(submission(tmp_path, source), tmp_path / "o",
                                                capsys)
    assert len(raw) < REPORT_BOUND, f"results.json is {len(raw):,} bytes"
    assert len(terminal) < REPORT_BOUND, f"the terminal report is {len(terminal):,} characters"
    assert seconds < FLOOD_SECONDS, f"grading took {seconds:.0f} s"
    if flood == "collection_errors":
        assert re.search(r"\.\.\. [\d,]+ more collection errors cut", results["output"])
        assert "more events cut" in results["output"]
    if flood == "observations":  # the 12 MB line is not read: the real run's events count
        assert "more events cut" in results["output"]
    if flood == "too_many_tests":
        assert "more events cut" in results["output"]
    if flood == "many_tests":
        assert results["score"] == FULL  # invented ids are ignored; the real tests count
    for test in results["tests"]:
        assert len(test["output"]) < 5000, test["name"]


def test_events_cap_is_per_child_and_counts_the_rest(tmp_path):
    from autograder.backends.run_folder import MAX_EVENT_BYTES, MAX_EVENTS, EventReader

    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps({"ev": "x", "k": i}) + "\n" for i in range(MAX_EVENTS + 5))
                    + json.dumps({"ev": "big", "v": "y" * MAX_EVENT_BYTES}) + "\n")
    reader = EventReader(path)
    events = reader.read() + reader.read()
    assert len(events) == MAX_EVENTS and events[-1]["k"] == MAX_EVENTS - 1
    assert reader.cut == 6
    short = tmp_path / "short.jsonl"
    short.write_text(json.dumps({"ev": "big", "v": "y" * MAX_EVENT_BYTES}) + "\n"
                     + json.dumps({"ev": "ok"}) + "\n")
    reader = EventReader(short)
    assert [e["ev"] for e in reader.read()] == ["ok"] and reader.cut == 1


def test_message_cap_says_how_much_was_cut():
    assert capped("abc", 5) == "abc"
    assert capped("x" * 12, 5) == "xxxxx\n... 7 more characters cut"


def _grade(toy, visibility: str, hints: list[str], message: str) -> AssignmentGrade:
    test = Result("toy", "test_mean", "test_more.py", visibility, 3.0, False, message,
                      hints, task=2, task_title="add and mean")
    return AssignmentGrade(toy, [test])


def test_hidden_hints_reach_only_the_instructor(toy):
    hint = "mean divides by n - 1: that is the sample variance's correction"
    hidden = _grade(toy, "hidden", [hint], "Hidden test failed.")
    public = _grade(toy, "public", [hint], "mean: expected 1, got 2")
    shown = json.dumps(results_json([hidden], 1.0))
    assert hint not in shown and "Hidden test failed." in shown
    assert hint in json.dumps(results_json([public], 1.0))  # public hints stay visible
    record = instructor_json([hidden])
    assert record == {"hints": {"toy · Task 2: add and mean · test_mean": [hint]}}
    # the class report (instructor-only) still counts the hidden misconception
    student = {**results_json([hidden], 1.0), "instructor": record}
    assert misconceptions({"alice": read_results(student)}) == {hint: 1}


def test_hidden_failure_says_only_failed_or_a_builtin_exception(toy_env, tmp_path):
    from helpers import grade_root

    wrong = SOLUTION.replace("/ len(xs)", "/ (len(xs) - 1)")
    raising = SOLUTION.replace("return sum(xs) / len(xs)", "raise KeyError('x')")
    for k, (source, expected) in enumerate(((wrong, "Hidden test failed."),
                                            (raising, "Hidden test failed. It raised KeyError."))):
        grade = grade_root(load("toy", toy_env), submission(tmp_path, source, f"s{k}"))
        test = next(t for t in grade.tests if t.id == "test_mean")
        assert not test.passed and test.message == expected


def test_visible_escapes_undecodable_bytes():
    assert visible("plain é ✓") == "plain é ✓"
    assert visible(os.fsdecode(b"caf\xe9.py")) == "caf\\xe9.py"
    assert visible("\ud800 \udfff") == "\\ud800 \\udfff"
    assert name(b"a\xffb") == "a\\xffb" and name(Path(os.fsdecode(b"\xff"))) == "\\xff"
    assert clean({"k\udcff": ["\udcfe", 1, None]}) == {"k\\xff": ["\\xfe", 1, None]}
    json.loads(utf8_json({"x": "\udcff é"}).decode("utf-8"))
    with pytest.raises(ValueError):
        utf8_json({"x": float("nan")})


def test_undecodable_names_give_strict_utf8_everywhere(toy_env, tmp_path, capsys):
    """File and folder names that are not UTF-8, and a child's error text holding a lone
    surrogate: results.json parses with a strict decoder, the terminal encodes strictly."""
    raising = SOLUTION.replace("return a + b",
                               "raise ValueError(b'bad \\xff'.decode('utf-8', 'surrogateescape'))")
    sub = submission(tmp_path, raising)
    root = os.fsencode(sub)
    for entry in (b"toy/caf\xe9.txt", b"toy/notes\xff.py", b"\xffdir/x.py", b"caf\xe9.md"):
        path = os.path.join(root, entry)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"x = 1\n")
    results, raw, terminal, _ = grade_cli(sub, tmp_path / "o", capsys)
    text = raw.decode("utf-8")
    assert "\\udc" not in text and "\\ud8" not in text  # no surrogate escapes left in the JSON
    assert "bad \\\\xff" in text  # the child's lone surrogate, escaped visibly
    assert "bad \\xff" in terminal
    assert "caf\\xe9.txt" in results["output"] and "caf\\xe9.txt" in terminal  # a name
    assert results["score"] == FULL - 2  # the raising add costs test_add only
