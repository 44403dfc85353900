"""The zip a student uploads, built from their working folder by the grader's own intake
(intake.take_in): what this check refuses, the grader refuses too, and the zip holds exactly
the files the grader would stage (`<package>/**/*.py`).

    packed = pack(load("bpe"), Path("starter"), Path("out/bpe-submission.zip"))
    packed.path, packed.files, packed.problems, packed.notes
"""

from __future__ import annotations

import io
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from ..assignments import Assignment
from ..atomic import write_atomic
from ..backends.causes import Reason
from .intake import staging_dir, take_in

# A fixed timestamp: the same package gives the same zip, byte for byte.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


@dataclass
class Packed:
    """The zip written (`path`, None when refused), its entries, and what intake said: fatal
    `problems` (nothing written) and informational `notes` (files left out). `removed`: the
    zip a refused submit deleted (an earlier one at the same path, which no longer matches the
    code), None if there was none."""

    path: Path | None
    files: list[str] = field(default_factory=list)
    problems: list[Reason] = field(default_factory=list)  # worded by grading/cause_text
    notes: list[str] = field(default_factory=list)
    removed: Path | None = None


def default_zip(assignment: Assignment) -> Path:
    """Where `submit` writes when no --out is given: out/<assignment>-submission.zip."""
    return Path("out") / f"{assignment.name}-submission.zip"


def pack(assignment: Assignment, impl: Path, out: Path) -> Packed:
    """Find the assignment's package in `impl` (at the top or one folder down), stage it as the
    grader does, and write its staged .py files to the zip `out` (atomically). With intake
    problems (no package, a syntax error, a forbidden import, ...) nothing is written, and a
    zip already at `out` is removed: a refused submit never leaves an older zip ready to
    upload."""
    work = staging_dir()
    try:
        part, = take_in(impl, work, [assignment]).parts
        if part.impl_root is None:
            removed = None
            if out.is_file() or out.is_symlink():
                out.unlink()
                removed = out
            return Packed(None, problems=list(part.problems), notes=list(part.notes),
                          removed=removed)
        staged = part.impl_root
        files = sorted(p.relative_to(staged).as_posix() for p in staged.rglob("*.py"))
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
            for name in files:
                zf.writestr(zipfile.ZipInfo(name, ZIP_TIME), (staged / name).read_bytes(),
                            zipfile.ZIP_DEFLATED)
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out, buffer.getvalue())
        return Packed(out, files, notes=list(part.notes))
    finally:
        shutil.rmtree(work, ignore_errors=True)
