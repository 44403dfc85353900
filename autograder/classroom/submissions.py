"""What a class run reads of the submissions folder, under intake's rules (intake.py), before
any student is graded: one `Submission` per entry, its content hash, and its .py sources for
the similarity scan. Nothing here follows a symbolic link, opens anything but a regular file,
or reads a file before checking its size; a submission that breaks a rule gets a one-line
`problem` (that student's zero) and never stops the class.

Names are shown with `safe_text.one_line`: a name that is not UTF-8 keeps its
undecodable bytes as `\\xNN`, control and format characters become escapes (`\\n`, `\\x1b`,
`\\u202e`), so every name written to grades.csv, the class report or the terminal is inert,
valid UTF-8 on one line.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..grading.intake import MAX_DEPTH, MAX_PY_FILE, MAX_ZIP_ENTRIES, MAX_ZIP_TOTAL, IntakeError, open_submission
from ..grading.safe_text import one_line
from .student_names import digest, family, name_flags, student_id, twin_notes

MAX_ZIP_FILE = 2 * MAX_ZIP_TOTAL  # a zip larger than this cannot unpack within intake's cap
MAX_FOLDER_ENTRIES = 100_000  # files and folders walked in one submission folder
HASHED_BYTES = 256 * 2**20  # .py content hashed per submission; past it, size and mtime
SCAN_BYTES = 512 * 2**10  # .py text compared per submission by the similarity scan


class SubmissionError(Exception):
    """A submission cannot be read within the rules; the message is one line."""


@dataclass
class Submission:
    """One entry of the submissions folder: its path, the student's unique id (its own name,
    inert: student_names.student_id; also the name of its folder under OUT) and, if it cannot
    be graded, why."""

    path: Path
    student: str
    problem: str | None = None
    notes: list[str] = field(default_factory=list)
    family: str = ""  # student_names.family of its name: look-alikes share it


def _student_name(entry: os.DirEntry) -> str:
    name = entry.name
    return name[:-4] if name.lower().endswith(".zip") and len(name) > 4 else name


def _problem(entry: os.DirEntry) -> str | None:
    """Why this entry is no gradable submission (a folder, or a zip within the size cap)."""
    shown = one_line(entry.name)
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError as e:
        return f"{shown} cannot be read ({e.strerror or type(e).__name__})"
    if stat.S_ISLNK(st.st_mode):
        return f"{shown} is a symbolic link: copy the submission into the folder instead"
    if stat.S_ISDIR(st.st_mode):
        return None
    if not stat.S_ISREG(st.st_mode):
        return f"{shown} is not a regular file or folder"
    if not entry.name.lower().endswith(".zip"):
        return f"{shown} is a file, not a folder or a .zip: submit the package folder or a zip of it"
    if st.st_size > MAX_ZIP_FILE:
        return f"{shown} is {st.st_size / 2**20:.0f} MB, larger than a submission may be " \
               f"({MAX_ZIP_FILE // 2**20} MB)"
    try:
        entries = zip_entry_count(Path(entry.path))
    except OSError as e:
        return f"{shown} cannot be read ({e.strerror or type(e).__name__})"
    if entries is not None and entries > MAX_ZIP_ENTRIES:
        return f"{shown}: the zip has {entries} entries (limit {MAX_ZIP_ENTRIES})"
    return None


def list_submissions(folder: Path, reserved: frozenset[str] = frozenset()) -> list[Submission]:
    """Every entry of `folder` except dot-files, sorted by name: each a student, gradable or
    not. A student's id is a function of their own entry alone (student_names.student_id);
    names that look like another's, or hide characters, are flagged in notes, never renamed
    (student_names). `family` is set for listing look-alikes side by side."""
    found = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith("."):
                continue
            name = _student_name(entry)
            student, why = student_id(name, entry.name, reserved)
            sub = Submission(Path(entry.path), student, _problem(entry), family=family(name))
            sub.notes += [why] if why else []
            sub.notes += name_flags(name)
            found.append((name, sub))
    found.sort(key=lambda f: (f[1].path.suffix.lower() == ".zip", os.fsencode(f[1].path.name)))
    taken: set[str] = set()
    for _, sub in found:  # the very same id twice (a folder x and a zip x.zip): the later moves
        if sub.student in taken:
            moved = f"{sub.student}~{digest(sub.path.name)}"
            while moved in taken:
                moved += "~"
            sub.notes.append(f"the id {sub.student} is another entry's: graded as {moved}")
            sub.student = moved
        taken.add(sub.student)
    twins = twin_notes({sub.student: name for name, sub in found})
    for _, sub in found:
        sub.notes += [twins[sub.student]] if sub.student in twins else []
    return sorted((sub for _, sub in found), key=lambda s: os.fsencode(s.path.name))


def zip_entry_count(path: Path) -> int | None:
    """The entry count in the zip's end-of-central-directory record (zip64 too), read from
    the file's last 64 KiB; None when there is none (intake then says what is wrong)."""
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        f.seek(max(0, size - 66_000))
        tail = f.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) < at + 22:
        return None
    count = struct.unpack("<H", tail[at + 10:at + 12])[0]
    locator = tail.rfind(b"PK\x06\x07", 0, at)
    z64 = tail.rfind(b"PK\x06\x06", 0, locator if locator >= 0 else at)
    if count == 0xFFFF and z64 >= 0 and len(tail) >= z64 + 40:
        count = struct.unpack("<Q", tail[z64 + 32:z64 + 40])[0]
    return count


def walk(root: Path) -> Iterator[tuple[bytes, os.stat_result]]:
    """(relative path as bytes, lstat) of every entry below `root`, sorted, depth first;
    symbolic links are listed, never followed. SubmissionError past MAX_FOLDER_ENTRIES
    entries or MAX_DEPTH levels."""
    count = 0
    stack = [(os.fsencode(root), b"", 0)]
    while stack:
        folder, rel, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise SubmissionError(f"the folder is nested deeper than {MAX_DEPTH} levels")
        try:
            with os.scandir(folder) as it:
                entries = sorted((e.name, e.stat(follow_symlinks=False)) for e in it)
        except OSError:
            continue  # unreadable folder: its content is not graded either
        later = []
        for name, st in entries:
            count += 1
            if count > MAX_FOLDER_ENTRIES:
                raise SubmissionError(f"the folder holds more than {MAX_FOLDER_ENTRIES} files "
                                      f"and folders")
            path = rel + b"/" + name if rel else name
            yield path, st
            if stat.S_ISDIR(st.st_mode):
                later.append((folder + b"/" + name, path, depth + 1))
        stack.extend(reversed(later))


def read_regular(path: bytes | Path, limit: int) -> bytes | None:
    """The bytes of a regular file of at most `limit` bytes, else None. Never follows a link,
    never blocks on a FIFO or device (O_NONBLOCK, then fstat)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


def submission_hash(sub: Submission) -> str:
    """sha256 of what grading can read: a zip's bytes (streamed; its size is capped at
    listing), or every entry of a folder (raw name, kind; a link's target text; a .py file's
    content up to HASHED_BYTES in all, other files' size and mtime). A submission with a
    problem hashes its problem. Raises SubmissionError for a folder past the walk's caps."""
    h = hashlib.sha256()
    if sub.problem is not None:
        h.update(b"problem\0" + sub.problem.encode())
        return h.hexdigest()
    if not sub.path.is_dir():
        with open(sub.path, "rb") as f:
            while chunk := f.read(2**20):
                h.update(chunk)
        return h.hexdigest()
    budget = HASHED_BYTES
    root = os.fsencode(sub.path)
    for rel, st in walk(sub.path):
        h.update(b"E" + rel + b"\0" + str(stat.S_IFMT(st.st_mode)).encode() + b"\0")
        if stat.S_ISLNK(st.st_mode):
            h.update(os.readlink(root + b"/" + rel) + b"\0")
        elif stat.S_ISREG(st.st_mode):
            data = None
            if rel.endswith(b".py") and st.st_size <= min(MAX_PY_FILE, budget):
                data = read_regular(root + b"/" + rel, MAX_PY_FILE)
            if data is not None:
                budget -= len(data)
                h.update(b"C" + hashlib.sha256(data).digest())
            else:
                h.update(f"S{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()


def python_sources(sub: Submission) -> tuple[list[str], str | None]:
    """(texts of the submission's .py files, a note) for the similarity scan: regular files only,
    each at most intake's MAX_PY_FILE, SCAN_BYTES in all (the note says when some were left
    out); a zip is unpacked by intake's own rules first. SubmissionError when it cannot be read
    (the student is then left out of the scan)."""
    if sub.problem is not None:
        raise SubmissionError(sub.problem)
    if sub.path.is_dir():
        return _folder_sources(sub.path)
    with tempfile.TemporaryDirectory(prefix="similarity-") as work:
        try:
            root = open_submission(sub.path, Path(work))
        except IntakeError as e:
            raise SubmissionError(one_line(str(e))) from None
        return _folder_sources(root)


def _folder_sources(root: Path) -> tuple[list[str], str | None]:
    texts, left, budget = [], 0, SCAN_BYTES
    base = os.fsencode(root)
    for rel, st in walk(root):
        if not rel.endswith(b".py") or not stat.S_ISREG(st.st_mode):
            continue
        if st.st_size > min(MAX_PY_FILE, budget):
            left += 1
            continue
        data = read_regular(base + b"/" + rel, min(MAX_PY_FILE, budget))
        if data is None:
            continue
        budget -= len(data)
        texts.append(data.decode("utf-8", errors="replace"))
    note = (f"{left} .py file(s) not compared (past {MAX_PY_FILE // 2**20} MB each or "
            f"{SCAN_BYTES // 2**10} KiB in all)") if left else None
    return texts, note
