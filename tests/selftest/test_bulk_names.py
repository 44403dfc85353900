"""One student's name never touches another's grade (autograder/classroom/student_names.py): a
class built around an honest student whose classmates' entries are named like theirs (by case,
by NFKC form, with a zero-width space, with a Cyrillic look-alike letter). The honest student
keeps their id and their score, and is not regraded when a twin comes late; each twin is
graded on its own files under its own id; every one of them is flagged side by side in
grades.csv and the class report, and the hidden and look-alike characters show escaped.
minigrad: the cheapest assignment to grade."""

from __future__ import annotations

import csv
import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from rich.console import Console

from autograder.classroom.bulk import run_bulk
from autograder.classroom.student_names import family, shown, student_id

ROOT = Path(__file__).resolve().parents[2]
HONEST = "alice"
TWINS = {  # entry name -> (its id in grades.csv, a flag its own name earns)
    "Alice": ("Alice", ""),  # case
    "\uff41lice.zip": ("\uff41lice", ""),  # NFKC: a fullwidth a, handed in as a zip
    "alice\u200b": ("alice\\u200b", "invisible, bidi or control characters"),  # zero-width
    "\u0430lice": ("\\u0430lice", "mixes Latin and Cyrillic letters"),  # Cyrillic a
}


def test_an_id_is_a_function_of_the_entry_alone():
    assert student_id(HONEST, HONEST) == (HONEST, None)
    for entry, (expected, _) in TWINS.items():
        name = entry.removesuffix(".zip")
        assert student_id(name, entry) == (expected, None)
        assert family(name) == family(HONEST)  # a look-alike of the honest name
    assert shown("Jose\u0301") == "Jose\\u0301" and shown("Jos\u00e9") == "Jos\u00e9"
    assert shown("\u0410\u043b\u0438\u0441\u0430") == "\u0410\u043b\u0438\u0441\u0430"  # one alphabet
    assert shown("Dmitri \u0421\u043c\u0438\u0440\u043d\u043e\u0432") == \
        "Dmitri \u0421\u043c\u0438\u0440\u043d\u043e\u0432"  # one alphabet per word
    assert student_id("a\\x1b", "a\\x1b")[0].startswith("a\\x1b~")  # typed out: not ESC's id


def looks_like(message: str) -> list[str]:
    """The ids a grades.csv message says this student's name looks like."""
    return message.split("looks like ", 1)[1].split(" (", 1)[0].split(", ")


def rows(path: Path) -> dict[str, dict]:
    return {r["student"]: r for r in csv.DictReader(io.StringIO(path.read_text("utf-8")))}


@pytest.mark.timeout(600)
def test_twins_never_rename_or_regrade_the_honest_student(tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    shutil.copytree(ROOT / "solutions" / "minigrad", subs / HONEST / "minigrad")
    last = list(TWINS)[-1]
    for entry in TWINS:  # each twin hands in the untouched starter
        if entry.endswith(".zip"):
            with zipfile.ZipFile(subs / entry, "w") as zf:
                for f in sorted((ROOT / "starter" / "minigrad").glob("*.py")):
                    zf.write(f, f"minigrad/{f.name}")
        elif entry != last:
            shutil.copytree(ROOT / "starter" / "minigrad", subs / entry / "minigrad")
    run_bulk(subs, ["minigrad"], out, 2, console=Console(file=io.StringIO(), width=200))
    shutil.copytree(ROOT / "starter" / "minigrad", subs / last / "minigrad")  # a twin comes late
    run_bulk(subs, ["minigrad"], out, 2, console=Console(file=io.StringIO(), width=200))
    graded = [json.loads(line)["student"] for line in (out / "run_log.jsonl").open()]
    assert graded.count(HONEST) == 1 and graded[-1] == TWINS[last][0]  # the honest one resumed
    grades = rows(out / "grades.csv")
    assert set(grades) == {HONEST, *(i for i, _ in TWINS.values())}  # one row each, own ids
    honest = grades[HONEST]
    assert float(honest["score"]) == float(honest["max_score"]) > 0  # full marks, unrenamed
    assert (out / HONEST / "results.json").exists()
    canvas = {r["SIS Login ID"]: r for r in csv.DictReader(
        io.StringIO((out / "canvas.csv").read_text("utf-8"))) if r["SIS Login ID"]}
    assert canvas[HONEST]["Student"] == HONEST
    for student, flag in TWINS.values():
        row = grades[student]
        assert float(row["score"]) == 0, student  # the starter's own grade
        assert HONEST in looks_like(row["message"]), row["message"]
        assert flag in row["message"], (student, row["message"])
    assert sorted(looks_like(honest["message"])) == sorted(i for i, _ in TWINS.values())
    report = (out / "class_report.md").read_text("utf-8")
    flagged = report.split("## Student names flagged", 1)[1].split("\n## ", 1)[0]
    for student in [HONEST, *(i for i, _ in TWINS.values())]:
        assert f"- {student.replace(chr(92), chr(92) * 2)}: " in flagged, student
    for name in ("grades.csv", "canvas.csv", "class_report.md", "class_report.html"):
        text = (out / name).read_text("utf-8")
        assert "\u200b" not in text and "\u0430" not in text  # shown escaped, never raw
