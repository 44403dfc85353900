"""The student release: the course without anything that gives answers away.

Built from what git tracks at HEAD (`git archive HEAD`): no caches, no uncommitted edits, no
untracked files. Left out: solutions/ (and its mutants), hidden tests with their inputs and
goldens, the course's self-tests, the bundled examples (they hold solution code), the
benchmarks (they import solutions), the instructor docs, README and Makefile (replaced by the
student ones in autograder/release_files/). Test helpers (tests/<a>/*.py) go through the
starter rule: a `### BEGIN SOLUTION` region (code that only runs when the instructor makes the
goldens, or ground truth a check can read precomputed) becomes `raise NotImplementedError`.
An assignment's checks module may define `release_truth(inputs) -> (key, truth) | None`: its
results on the public inputs are stored in tests/<a>/inputs/public_truth.json.
"""

from __future__ import annotations

import io
import json
import subprocess
import tarfile
from pathlib import Path, PurePosixPath

from .assignments import course_root, discover
from .harness.plaindata import decode
from .starter import strip_solutions

EXCLUDED_TOP = {"solutions", "examples", "bench", "docs", ".ci", "README.md", "Makefile",
                ".gitignore"}
STUDENT_FILES = Path(__file__).parent / "release_files"


class ReleaseError(Exception):
    """The release cannot be built (one line for the user)."""


def excluded(path: PurePosixPath) -> bool:
    """Whether a tracked file stays out of the student release (make_plots.py, crosscheck_*: instructor
    scripts that import solutions or read hidden goldens)."""
    parts = path.parts
    if parts[0] in EXCLUDED_TOP or path.name.startswith("crosscheck_") or path.name == "make_plots.py":
        return True
    if parts[0] == "autograder" and len(parts) > 1 and parts[1] == "release_files":
        return True
    if parts[0] == "tests" and len(parts) > 2:
        if parts[1] == "selftest" or parts[2] == "hidden":
            return True
        if len(parts) == 4 and parts[2] in ("goldens", "inputs") and parts[3] == "hidden.json":
            return True
    return False


def _tracked_files(root: Path) -> dict[str, bytes]:
    """{path: content} of every file git tracks at HEAD."""
    try:
        blob = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=root,
                              capture_output=True, check=True, timeout=120).stdout
    except (OSError, subprocess.SubprocessError) as e:
        raise ReleaseError(f"cannot read the committed course with `git archive HEAD` in {root}: "
                           f"{e}") from e
    out = {}
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        for member in tar.getmembers():
            if member.isfile():
                out[member.name] = tar.extractfile(member).read()
    return out


def _student_content(path: PurePosixPath, content: bytes) -> bytes:
    if path.parts[0] == "tests" and path.suffix == ".py":
        return strip_solutions(content.decode("utf-8"), str(path)).encode("utf-8")
    return content


def build_release(dest: Path, root: Path | None = None) -> Path:
    """Write the student release into the folder dest (which must not exist yet) and
    dest.tar.gz next to it; returns dest."""
    root = root or course_root()
    dest = Path(dest)
    tarball = dest.parent / f"{dest.name}.tar.gz"
    for target in (dest, tarball):
        if target.exists():
            raise ReleaseError(f"{target} already exists; choose a new destination")
    files = _tracked_files(root)
    staged = {}
    for name, content in files.items():
        path = PurePosixPath(name)
        if not excluded(path):
            staged[name] = _student_content(path, content)
    for extra in STUDENT_FILES.iterdir():
        staged[extra.name] = extra.read_bytes()
    dest.mkdir(parents=True)
    for name, content in staged.items():
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    _ship_truths(dest, root)
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
