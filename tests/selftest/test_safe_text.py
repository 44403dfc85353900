"""Text a submission cannot turn into commands (autograder/grading/safe_text.py): every string
that comes from a submission (exception messages, test output, hints computed from its values,
module, file and student names) is inert in every sink: the terminal report, results.json and
instructor.json, grades.csv and canvas.csv, the class report in Markdown and HTML, the regrade
preview, the notebook's feedback and the CLI's error lines. Each sink is fed the whole hostile
set raw; none of its characters comes out raw, and each shows as its visible escape."""

from __future__ import annotations

import io
import json
import sys
import unicodedata

import pytest
from helpers import SOLUTION, submission
from rich.console import Console

from autograder import cli
from autograder.backends.causes import Cause, Reason
from autograder.classroom.class_report import class_report
from autograder.classroom.gradebook import write_canvas, write_gradebook
from autograder.classroom.html_report import html_report
from autograder.classroom.regrade import Change, terminal_table, write_comparison
from autograder.classroom.similarity import Cluster, Scan
from autograder.grading.judge import AssignmentGrade
from autograder.grading.judge import TestResult as Judged  # (not "Test…": pytest would collect it)
from autograder.grading.report import instructor_json, print_report, results_json, utf8_json
from autograder.grading.results import GradedRun, GradedTest
from autograder.grading.safe_text import INERT, name, one_line, visible
from autograder.integrations.nbgrader_lab import LabGrade

OSC52 = "\x1b]52;c;ZWNobyBvd25lZA==\x07"  # writes the reader's clipboard
TITLE = "\x1b]0;grader says: all good\x07"  # sets the terminal's title
CSI = "\x1b[2J\x1b[H\x1b[8m"  # clears the screen, hides what follows
C1 = "".join(map(chr, range(0x80, 0xA0)))  # U+009B is CSI, U+009D OSC, U+009C ST
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
ZERO_WIDTH = "\u200b\u200c\u200d\ufeff"
OTHER = "\x00\x7f\r\u2028\u2029\ud800\udcff\U000e0041"  # NUL, DEL, CR, separators, surrogates, tag
HOSTILE = f"x{OSC52}{TITLE}{CSI}{C1}{BIDI}{ZERO_WIDTH}{OTHER}y"
RAW = {c for c in HOSTILE if not (c.isascii() and c.isprintable())}  # what must never pass
STUDENT = f"eve{BIDI}{ZERO_WIDTH}\x1b]0;t\x07"  # a student name carrying the same attacks


def assert_inert(text: str, where: str) -> None:
    """No hostile character is in `text` raw; the ESC and the RLO show as escapes."""
    raw = sorted({f"U+{ord(c):04X}" for c in text if c in RAW})
    assert not raw, f"{where}: raw {', '.join(raw)}"
    assert "x1b" in text and "u202e" in text, f"{where}: the escapes are not shown"
    text.encode("utf-8")  # strict


def test_the_pattern_covers_every_control_format_and_separator_character():
    categories = {"Cc", "Cf", "Cs", "Zl", "Zp"}
    missed = [f"U+{c:04X}" for c in range(sys.maxunicode + 1)
              if unicodedata.category(chr(c)) in categories and not INERT.fullmatch(chr(c))]
    assert not missed, missed[:20]
    assert not INERT.search("plain é ✓ Ωμέγα Алиса 山田 😀 -=+@ \\")  # letters, symbols stay


def test_escapes_are_visible_and_multi_line_text_stays_multi_line():
    assert visible("a\x1b]52;c;QQ==\x07b") == "a\\x1b]52;c;QQ==\\x07b"
    assert visible("r\u202eevil\u200b\ufeff") == "r\\u202eevil\\u200b\\ufeff"
    assert visible("\x9b1m \x00 \U000e0041") == "\\x9b1m \\x00 \\U000e0041"
    assert visible("line 1\n\tline 2\r\n") == "line 1\n\tline 2\\r\n"
    assert one_line("line 1\n\tline 2\r\n") == "line 1\\n\\tline 2\\r\\n"
    assert visible("caf\udce9 \ud800") == "caf\\xe9 \\ud800"  # undecodable byte, lone surrogate
    assert name(b"a\x1bb\xff") == "a\\x1bb\\xff"
    assert one_line(HOSTILE).count("\\") == sum(c in RAW for c in HOSTILE)  # one escape each


@pytest.fixture
def hostile_grades(toy) -> list[AssignmentGrade]:
    """One toy grade in which every string a submission can reach is HOSTILE: a failure's
    message, its hints (public and hidden), a test id echoed in a problem, a note."""
    tests = [Judged("toy", f"test_add{HOSTILE}", "test_add.py", "public", 2, False,
                        message=f"ValueError: {HOSTILE}\nprinted: {HOSTILE}", hints=[HOSTILE],
                        task=1, task_title="Add"),
             Judged("toy", "test_mean", "test_mean.py", "hidden", 3, False,
                        message="Hidden test failed.", hints=[f"hidden {HOSTILE}"], task=2),
             Judged("toy", "test_ok", "test_ok.py", "public", 2, True, task=1)]
    problem = Reason(Cause.PACKAGE_IMPORT, detail=f"cannot import {HOSTILE}", file="toy/a.py", line=1)
    return [AssignmentGrade(toy, tests, problems=[problem],
                            notes=[f"graded {HOSTILE}/ (also found {HOSTILE})"])]


def test_the_terminal_report_and_results_json_are_inert(hostile_grades):
    terminal = io.StringIO()
    print_report(hostile_grades, Console(file=terminal, width=300, color_system=None),
                 title=f"grade {HOSTILE}", problems=[HOSTILE])
    assert_inert(terminal.getvalue(), "terminal report")
    for what, data in (("results.json", results_json(hostile_grades, 1.0, [HOSTILE])),
                       ("instructor.json", instructor_json(hostile_grades))):
        raw = utf8_json(data).decode("utf-8")
        assert_inert(raw, what)
        assert_inert(json.dumps(json.loads(raw), ensure_ascii=False), f"{what}, parsed")


def hostile_run() -> GradedRun:
    """A GradedRun whose strings are HOSTILE, as a forged or old results.json could hold."""
    tests = (GradedTest(f"toy · {HOSTILE}", "toy", 1, HOSTILE, "test_add", "test_add.py",
                        "public", 0.0, 2.0, False, hints=(HOSTILE,)),
             GradedTest("toy · test_ok", "toy", 1, "Add", "test_ok", "test_ok.py", "public",
                        2.0, 2.0, True))
    return GradedRun(2.0, 4.0, HOSTILE, tests, {f"toy · {HOSTILE}": (f"hidden {HOSTILE}",)})


def test_the_gradebooks_class_report_and_regrade_preview_are_inert(toy, tmp_path, capsys):
    runs = {STUDENT: hostile_run(), "bob": hostile_run()}
    messages = {STUDENT: HOSTILE, "bob": "", "mallory": f"rejected: {HOSTILE}"}
    write_gradebook(runs, messages, [toy], tmp_path / "grades.csv")
    write_canvas(runs, messages, [toy], tmp_path / "canvas.csv")
    scan = Scan([Cluster([STUDENT, "bob"], 0.9, 40)], skipped={HOSTILE: HOSTILE},
                notes={STUDENT: HOSTILE})
    report = class_report(runs, {"mallory": HOSTILE}, [STUDENT, "bob", "mallory"], [toy], scan)
    changes = [Change(STUDENT, 2.0, 4.0, 4.0, 4.0, [(HOSTILE, 0.0, 2.0)])]
    write_comparison(changes, tmp_path / HOSTILE.replace("\x00", ""), tmp_path)
    terminal = io.StringIO()
    Console(file=terminal, width=300, color_system=None).print(
        terminal_table(changes, tmp_path / HOSTILE.replace("\x00", "")))
    sinks = {f: (tmp_path / f).read_bytes().decode("utf-8")
             for f in ("grades.csv", "canvas.csv", "compare.csv", "compare.md")}
    sinks.update({"class_report.md": report.markdown(), "class_report.html": html_report(report),
                  "regrade table": terminal.getvalue()})
    for where, text in sinks.items():
        assert_inert(text, where)


def test_the_notebook_feedback_and_the_cli_error_lines_are_inert(toy_env, capsys):
    failed = Judged("toy", HOSTILE, "test_add.py", "public", 2, False,
                        message=f"{HOSTILE}\n{HOSTILE}", hints=[HOSTILE], task=1)
    LabGrade("toy", (failed,), (HOSTILE,), True).task(1)
    assert_inert(capsys.readouterr().out, "notebook feedback")
    assert cli.main(["check", f"nope{HOSTILE}".replace("\x00", "")]) == 2
    assert_inert(capsys.readouterr().err, "cli error line")


def test_a_hostile_submission_graded_end_to_end_reaches_no_sink_raw(toy_env, tmp_path, capsys):
    """A submission raising with the hostile text, printing it, in a folder named with it:
    the terminal and results.json of `grade` show it escaped."""
    source = SOLUTION.replace("return a + b", f"print({HOSTILE!r}); raise ValueError({HOSTILE!r})")
    sub = submission(tmp_path, source, "sub" + STUDENT)
    (sub / "toy" / f"notes{BIDI}{OSC52}.txt").write_text("x")  # a file name in intake's notes
    (sub / f"toy{ZERO_WIDTH}{TITLE}").mkdir()  # a look-alike package folder beside the real one
    assert cli.main(["grade", str(sub), "--out", str(tmp_path / "o")]) == 0
    raw = (tmp_path / "o" / "results.json").read_bytes()
    results, shown = json.loads(raw.decode("utf-8")), capsys.readouterr()
    terminal = shown.out + shown.err
    assert_inert(terminal, "grade's terminal")
    assert "notes\\u202a" in terminal and "notes\\u202a" in results["output"]  # the file name
    assert_inert(raw.decode("utf-8"), "results.json")
    assert_inert(json.dumps(results, ensure_ascii=False), "results.json, parsed")
