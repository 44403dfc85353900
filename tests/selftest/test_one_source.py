"""One source for what students get (autograder/committed.py): the student release, the
nbgrader course and bulk's similarity baseline are all built from the course as committed at
git HEAD; an uncommitted edit to the starter (an instructor's half-solved copy) reaches none of
them, and each build names the uncommitted files it left out in one line.

In a fresh clone of this checkout (only starter/ and minigrad's tests in its working tree: the
builders read HEAD from git's objects, bulk grades from the tests), the minigrad starter gets a
half-solved function and a new scratch file; nothing is committed. Then: the release's starter
and the nbgrader course's starter package are HEAD's, byte for byte; and two students who both
hand in that half-solved copy are flagged as similar by `bulk` (the baseline subtracted is
HEAD's starter: subtracting the edited one would hide exactly the code they share).

Mutants that fail these tests: nbgrader_course copying the working tree's starter/ (the
half-solved function in the notebook's package); the baseline read from the working tree (the
copies are "too small to compare"); a build that says nothing of the uncommitted files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STARTER = "starter/minigrad/engine.py"
HALF_SOLVED = "".join(  # an instructor's half-solved edit: code a student could copy whole
    f"\n\ndef _solved_{i}(xs, scale={i}):\n    total = 0.0\n    for k, x in enumerate(xs):\n"
    f"        if k % {i + 2} == 0:\n            total += scale * x * x\n"
    f"        else:\n            total -= x / (k + {i + 1})\n    return total\n" for i in range(8))
SCRATCH = "starter/minigrad/scratch.py"

pytestmark = pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(),
                                reason="needs git and the course's git checkout")


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A clone of this checkout's HEAD, starter/ edited and a file added, nothing committed."""
    course = tmp_path_factory.mktemp("clone") / "course"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(ROOT), str(course)], check=True,
                   timeout=120)
    subprocess.run(["git", "sparse-checkout", "set", "--no-cone", "/starter/", "/tests/minigrad/"],
                   cwd=course, check=True, timeout=60)
    subprocess.run(["git", "checkout", "-q"], cwd=course, check=True, timeout=60)
    with open(course / STARTER, "a") as f:
        f.write(HALF_SOLVED)
    (course / SCRATCH).write_text("ANSWER = 42\n")
    return course


def _committed(clone: Path, path: str) -> bytes:
    return subprocess.run(["git", "show", f"HEAD:{path}"], cwd=clone, capture_output=True,
                          check=True, timeout=60).stdout


def _named_once(notes: list[str]) -> str:
    assert len(notes) == 1 and "\n" not in notes[0], notes
    assert STARTER in notes[0] and SCRATCH in notes[0], notes[0]
    return notes[0]


def test_the_release_is_heads_and_names_what_it_left_out(clone, tmp_path):
    from autograder.authoring.release import build_release

    notes: list[str] = []
    dest = build_release(tmp_path / "release", clone, say=notes.append)
    assert "git HEAD" in _named_once(notes)
    assert (dest / STARTER).read_bytes() == _committed(clone, STARTER)
    assert not (dest / SCRATCH).exists()


def test_the_nbgrader_course_is_heads_and_names_what_it_left_out(clone, tmp_path):
    from autograder.integrations.nbgrader_course import build_course

    notes: list[str] = []
    out = build_course(tmp_path / "nbgrader", ["minigrad"], clone, say=notes.append)
    _named_once(notes)
    package = out / "source" / "minigrad" / "minigrad"
    assert (package / "engine.py").read_bytes() == _committed(clone, STARTER)
    assert not (package / "scratch.py").exists()
    assert (out / "source" / "minigrad" / "minigrad.ipynb").is_file()


def test_the_similarity_baseline_is_heads(clone, tmp_path):
    """Two students hand in the instructor's half-solved starter: flagged as similar."""
    subs, out = tmp_path / "subs", tmp_path / "out"
    for student in ("ann", "ben"):
        shutil.copytree(clone / "starter" / "minigrad", subs / student / "minigrad",
                        ignore=shutil.ignore_patterns("scratch.py", "__pycache__"))
    done = subprocess.run([sys.executable, "-m", "autograder", "bulk", str(subs),
                           "--assignment", "minigrad", "--jobs", "2", "--out", str(out)],
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "TRAINING_SYSTEMS_ROOT": str(clone)})
    assert done.returncode == 0, done.stderr
    notes = [ln for ln in done.stdout.splitlines() if ln.startswith("note:")]
    assert "similarity baseline" in _named_once(notes)
    report = (out / "class_report.md").read_text()
    similar = report.split("## Suspiciously similar submissions", 1)[1].split("\n## ", 1)[0]
    assert "ann ~ ben" in similar and "too small" not in similar, similar


def test_a_course_outside_git_is_built_as_it_is_and_said_so(tmp_path):
    from autograder.committed import course_files

    (tmp_path / "starter" / "toy").mkdir(parents=True)
    (tmp_path / "starter" / "toy" / "__init__.py").write_text("X = 1\n")
    (tmp_path / "starter" / "toy" / "__pycache__").mkdir()
    (tmp_path / "starter" / "toy" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    found = course_files(tmp_path, ["starter"])
    assert found.files == {"starter/toy/__init__.py": b"X = 1\n"} and not found.committed
    assert "not a git checkout" in found.note("the similarity baseline")
