"""One source for what students get: the course's files as git committed them at HEAD.

The student release (authoring/release.py), the nbgrader course (integrations/nbgrader_course.py)
and the baseline of bulk's similarity scan (the starter every student received, subtracted
from their code: classroom/similarity.py) are all built from `course_files(root, paths)`: the
files under `paths` at HEAD. An uncommitted change to one of them (edited, staged, new,
deleted) is left out and named in one line (`CourseFiles.note`), so the three outputs agree
with each other and with what anyone rebuilding that commit gets.

Why HEAD and not the working tree: the working tree is where an instructor writes solutions,
and a half-solved starter must never reach students (nor become the baseline that hides what
students copied from it); a commit is a state someone chose, reviewable and reproducible. To
ship a change, commit it.

Outside git (a course folder copied without its history) there is no HEAD: the files are read
as they are, and the note says so; the release refuses instead (`require_commit`), since a
release is a committed state or nothing.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

GIT_TIMEOUT_S = 120
SKIPPED_PARTS = ("__pycache__",)  # never course files (outside git: nothing says what is tracked)
MAX_NAMED = 8  # uncommitted files named in the note; the rest counted


def print_note(line: str) -> None:
    """A builder's default for its note: one line on stderr."""
    print(line, file=sys.stderr)


class NoCommitError(Exception):
    """The course has no committed tree to build from (one line for the user)."""


@dataclass(frozen=True)
class CourseFiles:
    """{course-relative POSIX path: bytes} under the paths asked for; `committed` says whether
    they come from HEAD (else from the folder as it is); `left_out` are the uncommitted changes
    under those paths that are not in them."""

    files: dict[str, bytes]
    committed: bool
    root: Path
    left_out: tuple[str, ...] = field(default=())

    def note(self, built: str) -> str | None:
        """One line for the user about where `built` (e.g. "the release") came from, when
        there is something to say: uncommitted changes left out, or no git at all."""
        if not self.committed:
            return (f"note: {self.root} is not a git checkout: {built} is built from its files "
                    f"as they are")
        if not self.left_out:
            return None
        named = ", ".join(self.left_out[:MAX_NAMED])
        more = f" and {len(self.left_out) - MAX_NAMED} more" if len(self.left_out) > MAX_NAMED \
            else ""
        return (f"note: {built} is built from the committed course (git HEAD); uncommitted "
                f"changes left out: {named}{more} (commit them to include them)")

    def write(self, dest: Path) -> Path:
        """Write the files under `dest` (created); returns dest."""
        dest.mkdir(parents=True, exist_ok=True)
        for name, content in self.files.items():
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        return dest


def _git(root: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=True,
                          timeout=GIT_TIMEOUT_S).stdout


def _checkout(root: Path) -> tuple[Path, str] | None:
    """(the repository's top folder, root's path inside it with a trailing "/" or "") when
    root is inside a git checkout with a HEAD commit; None otherwise."""
    try:
        top = _git(root, "rev-parse", "--show-toplevel").decode().strip()
        prefix = _git(root, "rev-parse", "--show-prefix").decode().strip()
        _git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
        return None
    return Path(top), prefix


def _committed(top: Path, prefix: str, paths: Sequence[str]) -> dict[str, bytes]:
    tree = f"HEAD:{prefix.rstrip('/')}" if prefix else "HEAD"
    if paths:  # only those HEAD has (git archive refuses a pathspec that matches nothing)
        present = _git(top, "ls-tree", "--name-only", "-z", tree, "--", *paths)
        paths = [p for p in present.decode("utf-8", "surrogateescape").split("\0") if p]
        if not paths:
            return {}
    blob = _git(top, "archive", "--format=tar", tree, "--", *paths)
    files = {}
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        for member in tar.getmembers():
            if member.isfile():
                files[member.name] = tar.extractfile(member).read()
    return files


def _uncommitted(top: Path, prefix: str, paths: Sequence[str]) -> tuple[str, ...]:
    """Course-relative paths under `paths` whose working copy differs from HEAD (porcelain
    status: edited, staged, new, deleted, renamed), sorted."""
    specs = [f"{prefix}{p}" for p in paths] or [prefix or "."]
    raw = _git(top, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *specs)
    entries = raw.decode("utf-8", "surrogateescape").split("\0")
    found, skip = set(), False
    for entry in entries:
        if skip or len(entry) < 4:
            skip = False
            continue
        skip = entry[0] in "RC"  # a rename or copy: the next entry is its old name
        found.add(entry[3:].removeprefix(prefix))
    return tuple(sorted(found))


def _as_they_are(root: Path, paths: Sequence[str]) -> dict[str, bytes]:
    files = {}
    for top in [root / p for p in paths] or [root]:
        walked = [top] if top.is_file() else sorted(top.rglob("*")) if top.is_dir() else []
        for path in walked:
            rel = path.relative_to(root)
            if path.is_file() and not path.is_symlink() and not set(rel.parts) & set(
                    SKIPPED_PARTS) and path.suffix != ".pyc":
                files[rel.as_posix()] = path.read_bytes()
    return files


def course_files(root: Path, paths: Sequence[str] = (), require_commit: bool = False
                 ) -> CourseFiles:
    """The course files under `paths` (course-relative; none: the whole course) as committed
    at HEAD, with the uncommitted changes among them named; outside git, the files as they are
    (NoCommitError instead with `require_commit`)."""
    root = Path(root).resolve()
    where = _checkout(root)
    if where is None:
        if require_commit:
            raise NoCommitError(f"{root} is not a git checkout with a commit: what students get "
                                f"is built from the committed course (git HEAD)")
        return CourseFiles(_as_they_are(root, paths), False, root)
    top, prefix = where
    try:
        files = _committed(top, prefix, [p.rstrip("/") for p in paths])
        left_out = _uncommitted(top, prefix, [p.rstrip("/") for p in paths])
    except (OSError, subprocess.SubprocessError, tarfile.TarError) as e:
        raise NoCommitError(f"cannot read the committed course in {root} with git: "
                            f"{e}") from e
    return CourseFiles(files, True, root, left_out)

