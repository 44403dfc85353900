"""What a submission prints (autograder/harness/output.py): capped per child and counted, so a
flood costs no point and the same score every run, with the report saying how much it printed;
the last lines a failing public test printed are shown with its failure, never what a hidden
test printed, nor what a public test printed on the graded inputs."""

from __future__ import annotations

import io
import json
import re
import time

from helpers import SOLUTION, check_results, draw_of, grade_root, submission

from autograder.assignments import load
from autograder.grading.report import results_json
from autograder.harness.output import CUT_LINE, TAIL_CHARS, CappedStream, PrintBudget

PUBLIC_POINTS, FULL = 4, 7
FLOOD_SECONDS = 120  # one check of the flood: about 3 s on the quiet machine
# 2 x 1,500 lines of 100 kB on every call of add (0.9 GB in test_add's 3 calls): past the sandbox's 128 MiB
# file-size limit, where pytest's capture failed the test with "File too large"
FLOOD = SOLUTION.replace("    return a + b", """    import sys
    line = "x" * 100_000
    for step in range(1500):
        print("flood", step, line)
        print(line, file=sys.stderr)
    return a + b""")
PRINTED = re.compile(r"the test process printed ([\d.]+) ([MG]B); the grader keeps the first")


def test_a_flood_costs_no_point_and_the_report_says_how_much(toy_env, tmp_path):
    toy = load("toy", toy_env)
    sub = submission(tmp_path, FLOOD)
    for _ in range(3):
        started = time.monotonic()
        results = check_results(toy, sub)
        seconds = time.monotonic() - started
        grade, = results.grades
        assert (grade.score, grade.max_score) == (PUBLIC_POINTS, PUBLIC_POINTS), grade.tests
        said = [m for n in grade.notes if (m := PRINTED.search(n))]
        assert said, grade.notes
        size = float(said[0].group(1)) * (1e3 if said[0].group(2) == "GB" else 1)
        assert size >= 3 * 300, said[0].group(0)  # 3 calls of add, 300 MB each (in MB)
        assert seconds < FLOOD_SECONDS, f"the check took {seconds:.0f} s"
    graded = grade_root(toy, sub)
    assert graded.score == FULL
    # its children are redacted (graded inputs, hidden tests): the note gives no count
    assert any("printed more than" in n for n in graded.notes), graded.notes


def test_a_failing_public_test_shows_what_it_printed_and_a_hidden_one_never(toy_env, tmp_path):
    printing = (SOLUTION.replace("    return a + b", "    print('ADD', repr(a))\n    return a - b")
                .replace("    return sum(xs) / len(xs)",
                         "    print('MEAN-SECRET', xs)\n    return sum(xs) / len(xs) + 1"))
    toy = load("toy", toy_env)
    sub = submission(tmp_path, printing)
    checked = next(t for t in grade_root(toy, sub, ("public",)).tests if t.id == "test_add")
    published = json.loads((toy_env / "tests/toy/inputs/public.json").read_text())["test_add"]
    assert not checked.passed
    assert checked.printed.splitlines() == [f"ADD {a!r}" for a, _ in published]
    graded = grade_root(toy, sub)
    shown = json.dumps(results_json([graded], 1.0))
    # what test_add printed on the published inputs (its run for the message), and nothing it
    # printed on the graded inputs, nor anything the hidden test_mean printed
    add = next(t for t in graded.tests if t.id == "test_add")
    assert add.printed == checked.printed and f"| ADD {published[0][0]!r}" in shown
    from autograder.harness.plaindata import decode

    secret = decode(draw_of(toy, sub).inputs["public"]["test_add"])
    assert not any(repr(a) in shown for a, _ in secret)
    assert "MEAN-SECRET" not in shown
    assert all(not t.printed for t in graded.tests if t.visibility == "hidden")


def test_the_budget_writes_through_then_counts_and_keeps_each_tests_tail():
    raw = io.StringIO()
    budget = PrintBudget(keep=10)
    stream = CappedStream(raw, budget)
    stream.write("12345")
    budget.mark()
    stream.write("67890abc")  # 5 of these 8 go through; the rest is counted
    stream.write("é" * 3)  # 6 bytes
    stream.buffer.write(b"xyz")
    assert raw.getvalue() == "1234567890" + CUT_LINE.format(10)
    assert budget.total == 5 + 8 + 6 + 3
    assert budget.since_mark() == (8 + 6 + 3, "67890abcéééxyz")
    stream.write("y" * (3 * TAIL_CHARS))
    size, tail = budget.since_mark()
    assert size == 17 + 3 * TAIL_CHARS and tail == "y" * TAIL_CHARS
    assert raw.getvalue().count("the grader keeps") == 1
