"""The student release: the course without anything that gives answers away.

Built from what git committed at HEAD (committed.course_files: the one source of what
students get, shared with the nbgrader course and the similarity baseline): no caches, no
uncommitted edits, no untracked files; an uncommitted change to a shipped file is named in one
line, left out. Which file ships, whole or stubbed, is `audiences.share("release", path)`, the
one table of who sees what (see autograder/audiences.py): handouts, starter, public tests with
their inputs and goldens, and only the engine `check` and local pytest need. README and Makefile
are replaced by the student ones in autograder/authoring/release_files/. A stubbed file goes through the
starter rule: a `### BEGIN SOLUTION` region (code that only runs when the instructor makes the
goldens, or ground truth a check can read precomputed) becomes `raise NotImplementedError`.
An assignment's checks module may define `release_truth(inputs) -> (key, truth) | None`: its
results on the public inputs are stored in tests/<a>/inputs/public_truth.json. In the shipped
Markdown, a reference to instructor-only material (`make bench`, a bench/ or crosscheck_ script)
is rewritten to say so (`student_text`).
"""

from __future__ import annotations

import json
import re
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path, PurePosixPath

from ..assignments import course_root, discover
from ..audiences import STUBBED, share
from ..committed import NoCommitError, course_files, print_note
from ..harness.plaindata import decode
from ..markers import strip_solutions

STUDENT_FILES = Path(__file__).parent / "release_files"


class ReleaseError(Exception):
    """The release cannot be built (one line for the user)."""


INSTRUCTOR_REFERENCE = re.compile(r"`make (?:bench|goldens|selftest|demo|mutation|gpu-check|gpu-wheels)`"
                                  r"|`[\w/]*(?:crosscheck_\w+|make_plots|make_tables)\.py`"
                                  r"|`(?:bench|solutions|examples|docker|docs)/[\w./-]*`")


def excluded(path: PurePosixPath) -> bool:
    """Whether a tracked file stays out of the student release."""
    return share("release", path) is None


def student_text(text: str) -> str:
    """Markdown as shipped: each mention of instructor-only material says that it is not here."""
    return INSTRUCTOR_REFERENCE.sub(lambda m: f"{m[0]} (instructor-only, not in this release)",
                                    text)


def _student_content(path: PurePosixPath, content: bytes) -> bytes:
    if share("release", path) == STUBBED:
        return strip_solutions(content.decode("utf-8"), str(path)).encode("utf-8")
    if path.suffix == ".md":
        return student_text(content.decode("utf-8")).encode("utf-8")
    return content


def build_release(dest: Path, root: Path | None = None,
                  say: Callable[[str], None] = print_note) -> Path:
    """Write the student release into the folder dest (which must not exist yet) and
    dest.tar.gz next to it, from the course committed at HEAD (committed.course_files; `say`
    gets the one-line note naming the uncommitted changes to shipped files left out);
    returns dest."""
    root = root or course_root()
    dest = Path(dest)
    tarball = dest.parent / f"{dest.name}.tar.gz"
    for target in (dest, tarball):
        if target.exists():
            raise ReleaseError(f"{target} already exists; choose a new destination")
    try:
        course = course_files(root, require_commit=True)
    except NoCommitError as e:
        raise ReleaseError(str(e)) from None
    shipped = [p for p in course.left_out if not excluded(PurePosixPath(p))]
    note = replace(course, left_out=tuple(shipped)).note("the release")
    if note:
        say(note)
    staged = {}
    for name, content in course.files.items():
        path = PurePosixPath(name)
        if not excluded(path):
            staged[name] = _student_content(path, content)
    for extra in STUDENT_FILES.iterdir():
        staged[extra.name] = extra.read_bytes()  # README.md, Makefile, pytest.ini
    dest.mkdir(parents=True)
    for name, content in staged.items():
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    with tempfile.TemporaryDirectory(prefix="release-course-") as tree:
        committed = replace(course, files={n: c for n, c in course.files.items()
                                           if n.startswith("tests/")})
        _ship_truths(dest, committed.write(Path(tree)))  # HEAD's checks.py, HEAD's inputs
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(dest, arcname=dest.name)
    return dest


def _ship_truths(dest: Path, root: Path) -> None:
    """Ground truth computed with the course's own (complete) checks, stored in dest."""
    for assignment in discover(root):
        checks = assignment.checks
        if checks is None or not hasattr(checks, "release_truth"):
            continue
        inputs_path = dest / "tests" / assignment.name / "inputs" / "public.json"
        if not inputs_path.exists():
            continue
        truths = {}
        for raw in json.loads(inputs_path.read_text(encoding="utf-8")).values():
            inputs = decode(raw)
            found = checks.release_truth(inputs) if isinstance(inputs, dict) else None
            if found:
                truths[found[0]] = found[1]
        if truths:
            target = inputs_path.parent / "public_truth.json"
            target.write_text(json.dumps(truths, sort_keys=True), encoding="utf-8")
