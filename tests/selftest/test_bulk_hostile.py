"""`bulk`'s adversarial corpus: one class run on the toy course in which most students attack
the class run itself (names, file kinds, sizes, links, zips) rather than the sandbox. Each
attack costs only its own student's grade (a zero with a one-line message, or a normal grade
where nothing was wrong with the code); every student keeps one row in grades.csv; the class
report is written; the honest students' grades are unaffected; everything written is valid
UTF-8 with names escaped visibly."""

import csv
import io
import os
import shutil
import struct
import unicodedata
import zipfile
import zlib
from pathlib import Path

import pytest
from helpers import SOLUTION
from rich.console import Console

from autograder import cli
from autograder.classroom.bulk import run_bulk

TOY = Path(__file__).parent / "toy_course"
STARTER = (TOY / "starter" / "toy" / "__init__.py").read_text()
WRONG_ADD = SOLUTION.replace("return a + b", "return a - b")
INJECTION = "=cmd|' -C calc'!A0,\"q\"\n\x1b[2Jrow"  # CSV formula, comma, quote, newline, ESC


def package(root: Path, source: str, name: str = "toy") -> Path:
    (root / name).mkdir(parents=True)
    (root / name / "__init__.py").write_text(source)
    return root / name


def raw_zip(path: Path, entries: list[tuple[str, int, bytes, int, int]]) -> None:
    """A zip written entry by entry without compressing anything here: (name, method, stored
    bytes, crc32, uncompressed size) each; zip64 end records when there are > 65535 entries."""
    body, central = bytearray(), bytearray()
    for name, method, data, crc, size in entries:
        raw = name.encode()
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0, crc,
                               len(data), size, len(raw), 0, 0, 0, 0, 0o100644 << 16,
                               len(body)) + raw
        body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, len(data),
                            size, len(raw), 0) + raw + data
    n, at = len(entries), len(body)
    tail = b""
    if n > 0xFFFF:
        tail = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, n, n, len(central), at)
        tail += struct.pack("<IIQI", 0x07064B50, 0, at + len(central), 1)
    tail += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(n, 0xFFFF), min(n, 0xFFFF),
                        len(central), at, 0)
    path.write_bytes(bytes(body + central + tail))


def deflated(data_chunks: list[bytes]) -> tuple[bytes, int, int]:
    z, crc, size, out = zlib.compressobj(9, zlib.DEFLATED, -15), 0, 0, []
    for chunk in data_chunks:
        out.append(z.compress(chunk))
        crc, size = zlib.crc32(chunk, crc), size + len(chunk)
    return b"".join(out) + z.flush(), crc, size


def hostile_class(subs: Path) -> dict[str, tuple[float, str]]:
    """The class: {student id in grades.csv: (score, a fragment of its message)}."""
    expected = {}
    package(subs / "alice", SOLUTION)  # honest
    expected["alice"] = (7, "")
    with zipfile.ZipFile(subs / "bob.zip", "w") as zf:
        zf.writestr("toy/__init__.py", WRONG_ADD)
    expected["bob"] = (5, "")
    package(subs / "untouched", STARTER)
    expected["untouched"] = (0, "")
    # 1 a folder name that is not UTF-8
    cafe = package(Path(os.fsdecode(bytes(subs) + b"/caf\xff")), SOLUTION)
    (cafe / os.fsdecode(b"\xffdata.txt")).write_text("not graded")  # listed in its notes
    expected["caf\\xff"] = (7, "")
    # 2 a 40 GiB sparse .py file in the package, and a 40 GiB sparse "zip"
    big = package(subs / "sparse", SOLUTION) / "weights.py"
    with open(big, "wb") as f:
        f.truncate(40 * 2**30)
    expected["sparse"] = (0, "weights.py is larger than 2 MB")
    with open(subs / "sparsezip.zip", "wb") as f:
        f.truncate(40 * 2**30)
    expected["sparsezip"] = (0, "larger than a submission may be")
    # 3 a directory named x.py, 4 a FIFO named notes.py, a link to / (beside a right package)
    traps = package(subs / "traps", SOLUTION)
    (traps / "x.py").mkdir()
    os.mkfifo(traps / "notes.py")
    (subs / "traps" / "everything").symlink_to("/")
    expected["traps"] = (7, "")
    os.mkfifo(subs / "pipe.zip")
    expected["pipe"] = (0, "not a regular file or folder")
    # 5 a zip of 600 x (1 MiB - 1) .py files (compresses to ~1 MB)
    data, crc, size = deflated([b"x = 1\n" * 174762 + b"#\n\n\n"])
    raw_zip(subs / "six_hundred.zip", [("toy/__init__.py", 0, SOLUTION.encode(),
                                        zlib.crc32(SOLUTION.encode()), len(SOLUTION))]
            + [(f"toy/m{i}.py", 8, data, crc, size) for i in range(600)])
    expected["six_hundred"] = (0, "unpacks to more than 50 MB")
    # 6 symbolic links: the package a link to a classmate's, a file linked to the solution,
    # the submission itself a link
    (subs / "linked").mkdir()
    (subs / "linked" / "toy").symlink_to(subs / "alice" / "toy")
    expected["linked"] = (0, "no 'toy' package found")
    (subs / "linkfile" / "toy").mkdir(parents=True)
    (subs / "linkfile" / "toy" / "__init__.py").symlink_to(TOY / "solutions/toy/__init__.py")
    expected["linkfile"] = (0, "no 'toy' package found")
    (subs / "toplink").symlink_to(subs / "alice")
    expected["toplink"] = (0, "is a symbolic link")
    # 7 a zip bomb (40 MiB of zeros in one entry), 8 a zip with 100,000 entries
    data, crc, size = deflated([bytes(2**20)] * 40)
    raw_zip(subs / "bomb.zip", [("toy/__init__.py", 8, data, crc, size)])
    expected["bomb"] = (0, "zip bomb")
    raw_zip(subs / "many.zip", [(f"toy/{i}.py", 0, b"", 0, 0) for i in range(100_000)])
    expected["many"] = (0, "the zip has 100000 entries")
    # 9 a submission that is a file, not a folder or zip
    (subs / "notes.txt").write_text(SOLUTION)
    expected["notes.txt"] = (0, "is a file, not a folder or a .zip")
    # 10 a name made for CSV injection and terminal escapes
    package(subs / INJECTION, SOLUTION)
    expected["=cmd|' -C calc'!A0,\"q\"\\n\\x1b[2Jrow"] = (7, "")
    # 11 look-alike names: by case, and by Unicode normalization (never renamed: flagged)
    package(subs / "Dup", SOLUTION)
    package(subs / "dup", WRONG_ADD)
    (subs / unicodedata.normalize("NFC", "José")).mkdir()  # (empty: nothing to run)
    (subs / unicodedata.normalize("NFD", "José")).mkdir()
    # 12 an empty folder; 13 a zip with placeholder packages for every assignment there is
    (subs / "empty").mkdir()
    expected["empty"] = (0, "no 'toy' package found")
    with zipfile.ZipFile(subs / "placeholders.zip", "w") as zf:
        for name in ("toy", "toy2", "minigrad", "bpe"):
            zf.writestr(f"{name}/__init__.py", STARTER)
    expected["placeholders"] = (0, "")
    # 15 a name the class run writes in OUT, and a name too long for a folder once escaped
    with zipfile.ZipFile(subs / "grades.csv.zip", "w") as zf:
        zf.writestr("toy/__init__.py", WRONG_ADD)
    (subs / os.fsdecode(b"\xfe" * 250)).mkdir()
    # 14 a name that Markdown would turn into emphasis (its message names __init__.py too)
    (subs / "__init__").mkdir()
    expected["__init__"] = (0, "with __init__.py")
    return expected


@pytest.fixture
def two_assignment_course(toy_env):
    """The toy course plus a second assignment `toy2` (its package never submitted but by the
    placeholder zip)."""
    shutil.copytree(toy_env / "tests" / "toy", toy_env / "tests" / "toy2")
    toml = toy_env / "tests" / "toy2" / "assignment.toml"
    toml.write_text(toml.read_text().replace('package = "toy"', 'package = "toy2"')
                    .replace("number = 99", "number = 98"))
    return toy_env


@pytest.mark.timeout(900)  # a regression that hangs the class run fails instead of hanging make test
def test_hostile_class_costs_only_each_attackers_grade(two_assignment_course, tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir()
    expected = hostile_class(subs)
    terminal = io.StringIO()
    run_bulk(subs, ["toy"], out, 2, console=Console(file=terminal, width=200))
    raw = (out / "grades.csv").read_bytes()
    table = list(csv.DictReader(io.StringIO(raw.decode("utf-8"))))
    by_id = {r["student"]: r for r in table}
    assert len(table) == len(os.listdir(subs)) == len(by_id)  # one row per student, no more
    for student, (score, fragment) in expected.items():
        shown = "'" + student if student.startswith("=") else student
        row = by_id[shown]
        assert (float(row["score"]), float(row["max_score"])) == (score, 7), student
        assert fragment in row["message"], (student, row["message"])
    renamed = [s for s in by_id if s.startswith("grades.csv~")]
    assert len(renamed) == 1 and float(by_id[renamed[0]]["score"]) == 5
    assert "is the name of a file the class run writes" in by_id[renamed[0]]["message"]
    assert len([s for s in by_id if s.startswith("\\xfe" * 50) and "~" in s]) == 1
    dups = {s: by_id[s] for s in ("Dup", "dup", "Jos\u00e9", "Jose\\u0301")}  # own ids, flagged
    assert all("looks like" in r["message"] for r in dups.values())
    assert [float(r["score"]) for r in dups.values()] == [7, 5, 0, 0]  # each on its own files
    for name in ("grades.csv", "canvas.csv", "class_report.md", "class_report.html"):
        text = (out / name).read_bytes().decode("utf-8")  # strict: valid UTF-8
        assert "\x1b" not in text and "\udcff" not in text
    assert raw.count(b"\n") == len(table) + 1  # no name broke a row
    (out / "caf\\xff" / "results.json").read_bytes().decode("utf-8")
    report = (out / "class_report.md").read_text()
    assert "## Suspiciously similar submissions" in report
    assert "not compared: six\\_hundred (" in report and "not compared: many (" in report
    assert "not compared: traps" not in report and "not compared: alice" not in report
    assert "\\_\\_init\\_\\_" in report  # escaped for Markdown: stays __init__ when rendered
    shown = terminal.getvalue()
    assert "__init__" in shown and "\x1b[2J" not in shown and "caf\\xff" in shown
    assert not (out / ".work").exists()


def test_assignments_are_never_inferred_from_submissions(two_assignment_course, tmp_path,
                                                         capsys):
    subs = tmp_path / "subs"
    package(subs / "alice", SOLUTION)
    with zipfile.ZipFile(subs / "mallory.zip", "w") as zf:
        for name in ("toy", "toy2"):
            zf.writestr(f"{name}/__init__.py", STARTER)
    out = tmp_path / "out"
    # two assignments in the course and none named: refused, nothing graded
    assert cli.main(["bulk", str(subs), "--out", str(out)]) == 2
    assert "--assignment" in capsys.readouterr().err and not (out / "grades.csv").exists()
