"""The progress view (autograder/progress.py): `check --all` prints every assignment's public
score with its handout's time estimate in one table; `check` without an assignment checks the
one whose package was saved last and says which; the README's time column is each handout's
own estimate (one source: a drift fails here)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import SOLUTION, submission

from autograder import cli, progress
from autograder.assignments import HANDOUT_TIME, TimeEstimate, discover, load

ROOT = Path(__file__).resolve().parents[2]


def test_every_handout_states_a_time_and_the_readme_table_shows_it():
    course = discover(ROOT)
    assert len(course) == 8 and all(a.time_estimate is not None for a in course)
    table = re.search(r"^\| # \| package \| handout \| time \|\n\|[-|]+\|\n((?:\|.*\|\n)+)",
                      (ROOT / "README.md").read_text(encoding="utf-8"), re.MULTILINE)
    assert table, "README.md has no assignment table with a time column"
    shown = {}
    for row in table.group(1).splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        shown[cells[1].strip("`")] = cells[-1]
    assert shown == {a.package: str(a.time_estimate) for a in course}
    total = sum((a.time_estimate for a in course[1:]), course[0].time_estimate)
    assert f"about {total.high} h in all" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(("line", "estimate"), [
    ("**Time:** about 4 hours. **Points:** 129", TimeEstimate(4, 4, True)),
    ("**Time:** 4–8 h (Task 2 is half)", TimeEstimate(4, 8, False)),
    ("**Time:** about 1 hour.", TimeEstimate(1, 1, True)),
    ("Time: 4 hours (not the handout's bold field)", None),
])
def test_a_handouts_time_line_reads_as_hours(line, estimate):
    found = HANDOUT_TIME.search(line)
    got = None if found is None else TimeEstimate(int(found["low"]),
                                                  int(found["high"] or found["low"]),
                                                  bool(found["about"]))
    assert got == estimate
    assert str(TimeEstimate(4, 8)) == "4–8 h" and str(TimeEstimate(4, 4, True)) == "about 4 h"


def _course_of_two(tmp_path: Path, toy_course: Path) -> Path:
    """The toy course and a copy of it as a second assignment (`toy2`), with handouts."""
    root = tmp_path / "course"
    shutil.copytree(toy_course, root)
    shutil.copytree(root / "tests" / "toy", root / "tests" / "toy2")
    toml = root / "tests" / "toy2" / "assignment.toml"
    toml.write_text(toml.read_text().replace('package = "toy"', 'package = "toy2"')
                    .replace("number = 99", "number = 100"))
    for test in (root / "tests" / "toy2").glob("*/test_*.py"):
        test.write_text(test.read_text().replace("import toy\n", "import toy2 as toy\n"))
    for folder in ("solutions", "starter"):
        shutil.copytree(root / folder / "toy", root / folder / "toy2")
    for name, time in (("toy", "about 2 hours"), ("toy2", "3–5 h")):
        handout = root / "assignments" / f"99_{name}" / "README.md"
        handout.parent.mkdir(parents=True, exist_ok=True)
        handout.write_text(f"# {name}\n\n**Time:** {time}. **Points:** 7.\n")
    return root


def test_check_all_prints_one_table_of_public_scores_and_times(toy_course, tmp_path,
                                                               monkeypatch, capsys):
    root = _course_of_two(tmp_path, toy_course)
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(root))
    impl = submission(tmp_path, SOLUTION.replace("/ len(xs)", "/ (len(xs) - 1)"), "mine")
    shutil.copytree(root / "solutions" / "toy2", impl / "toy2")
    (impl / "toy" / "__init__.py").write_text(SOLUTION.replace("return a + b", "return a - b"))
    assert cli.main(["check", "--all", "--impl", str(impl), "--isolation", "none"]) == 1
    out = capsys.readouterr().out
    rows = {line.split("│")[2].strip(): [c.strip() for c in line.split("│")[3:-1]]
            for line in out.splitlines() if line.count("│") > 5}
    assert rows["toy"][:4] == ["2 / 4", "50 %", "2 of 3", "about 2 h"]
    assert rows["toy2"][:4] == ["4 / 4", "100 %", "3 of 3", "3–5 h"] and rows["toy2"][4] == "✓"
    assert rows["total"][:4] == ["6 / 8", "75 %", "5 of 6", "about 5–7 h"]
    assert f"next: make check A=toy IMPL={impl}" in out
    assert cli.main(["check", "all", "--impl", str(root / "solutions"), "--isolation", "none"]) == 0
    assert "2 of 2 assignments at full public points" in capsys.readouterr().out


def test_check_without_an_assignment_checks_the_one_saved_last(toy_course, tmp_path,
                                                               monkeypatch, capsys):
    root = _course_of_two(tmp_path, toy_course)
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(root))
    impl = tmp_path / "impl"
    shutil.copytree(root / "solutions", impl)
    for f in impl.rglob("*.py"):
        os.utime(f, (1_700_000_000, 1_700_000_000))  # a fresh copy: nothing edited yet
    assert progress.last_edited(impl) == (load("toy"), False)
    assert cli.main(["check", "--impl", str(impl), "--isolation", "none"]) == 0
    shown = capsys.readouterr()
    assert "checking toy, the first one: no package edited yet" in shown.err
    assert "check toy (" in shown.out
    os.utime(impl / "toy2" / "__init__.py", (1_700_000_100, 1_700_000_100))  # a save
    assert progress.last_edited(impl) == (load("toy2"), True)
    assert cli.main(["check", "--impl", str(impl), "--isolation", "none"]) == 0
    shown = capsys.readouterr()
    assert "checking toy2, the one whose package you saved last" in shown.err
    assert "check toy2 (" in shown.out


def test_make_check_passes_only_an_assignment_given_to_it():
    def dry(*args: str) -> str:
        done = subprocess.run(["make", "-s", "-n", "-C", str(ROOT), *args], capture_output=True,
                              text=True, timeout=60, check=True,
                              env={k: v for k, v in os.environ.items() if k != "A"})
        return done.stdout

    assert re.search(r"-m autograder check\s+;", dry("check", "-o", ".venv/.installed",
                                                     "-o", ".venv/.bytecode"))
    assert "-m autograder check bpe " in dry("check", "A=bpe", "-o", ".venv/.installed",
                                             "-o", ".venv/.bytecode")
    assert "-m autograder check --all --impl mine" in dry("progress", "IMPL=mine", "-o",
                                                          ".venv/.installed", "-o",
                                                          ".venv/.bytecode")
