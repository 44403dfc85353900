"""Submission intake: trusts nothing. `take_in` is the one way in: it opens a folder or a zip,
finds each assignment's package in it and stages a clean copy of its .py files for the sandbox,
after static checks, returning one typed `Intake`.

Every rejection is a `backends.causes.Reason` (grading/cause_text.py words it: one clear line, a
syntax error's offending line under it); nothing here imports or runs submitted code.
"""

from __future__ import annotations

import stat
import tempfile
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from ..assignments import Assignment, discover
from ..backends.causes import Cause, Reason
from ..sandbox.threadsafe_ast import parse
from .forbidden import forbidden_uses
from .misplaced_package import found_instead

MAX_ZIP_ENTRIES = 2000
MAX_ZIP_TOTAL = 50 * 2**20
MAX_ZIP_RATIO = 200
MAX_PY_FILES = 200
MAX_PY_FILE = 2 * 2**20
MAX_PY_TOTAL = 8 * 2**20
MAX_NAME = 255
MAX_DEPTH = 32
REFUSED_NAMES = {"conftest.py", "sitecustomize.py", "usercustomize.py"}
# Modules of the test stack: a file or folder of this name in a submission could shadow them.
SHADOWING = {"pytest", "_pytest", "pluggy", "py", "iniconfig", "numpy", "torch", "hypothesis",
             "autograder", "site", "sitecustomize", "usercustomize", "conftest"}


class IntakeError(Exception):
    """The submission as a whole cannot be read (e.g. a broken or unsafe zip)."""


@dataclass
class Staged:
    """A submission package staged for grading (`root/<package>/`), or why it cannot be."""

    root: Path | None
    problems: list[Reason] = field(default_factory=list)  # fatal: zero for the assignment
    notes: list[str] = field(default_factory=list)  # informational


@dataclass(frozen=True)
class Part:
    """One assignment of a submission after intake: its package staged at
    `impl_root/<package>/` (None: not staged, and `problems` says why: each test then fails,
    not run, for the first of them), and informational `notes` (files left out, other copies)."""

    assignment: Assignment
    impl_root: Path | None
    problems: tuple[Reason, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Intake:
    """What intake made of one submission: a `Part` per assignment it is graded on, and the
    `problems` of the submission as a whole (a rejected zip, no package found)."""

    parts: tuple[Part, ...]
    problems: tuple[Reason, ...] = ()


def take_in(source: Path, work: Path, assignments: list[Assignment] | None = None) -> Intake:
    """The one intake of a submission: `source` (a folder, or a zip unpacked safely under
    `work`) and, for each of `assignments` (default: every assignment whose package it holds),
    its package found at the top or one folder down, checked statically and staged under
    `work`. Bad input is a problem in the result, never an exception."""
    try:
        root: Path | None = open_submission(Path(source), work)
        problems: list[Reason] = []
    except IntakeError as e:
        root, problems = None, [Reason(Cause.SUBMISSION_REJECTED, detail=str(e))]
    chosen = list(assignments) if assignments else _found(root, problems)
    if root is None:
        return Intake(tuple(Part(a, None, tuple(problems)) for a in chosen), tuple(problems))
    return Intake(tuple(_part(a, root, work / "staged" / a.name) for a in chosen),
                  tuple(problems))


def _found(root: Path | None, problems: list[Reason]) -> list[Assignment]:
    """Every assignment whose package `root` holds; a package meant but not usable (or none at
    all) is a problem of the submission."""
    if root is None:
        return []
    found = [a for a in discover() if find_package(root, a.package)]
    graded = {a.name for a in found}
    for a in discover():
        instead = None if a.name in graded else found_instead(root, a.package)
        if instead:
            problems.append(Reason(Cause.NOT_GRADED, label=a.name, module=a.package,
                                detail=instead))
    if not found:
        problems.append(Reason(Cause.NO_PACKAGES, detail=", ".join(a.package for a in discover())))
    return found


def _part(assignment: Assignment, root: Path, dest: Path) -> Part:
    """The assignment's package in `root`, staged at dest/<package>/, or why it is not."""
    try:
        package_dir = find_package(root, assignment.package)
    except (OSError, ValueError) as e:
        return Part(assignment, None, (Reason(Cause.UNREADABLE, detail=f"{type(e).__name__}: {e}"),))
    if package_dir is None:
        return Part(assignment, None, (Reason(Cause.NO_PACKAGE, module=assignment.package,
                                           detail=found_instead(root, assignment.package)),))
    staged = stage(package_dir, assignment, dest)
    notes = tuple(_also_found(root, assignment.package, package_dir) + staged.notes)
    if staged.problems:
        return Part(assignment, None, tuple(staged.problems), notes)
    return Part(assignment, dest, (), notes)


def _also_found(root: Path, package: str, chosen: Path) -> list[str]:
    """A note naming the other copies of the package (one folder down) that are not graded."""
    try:
        others = [p for p in sorted(root.iterdir()) if p.is_dir() and not p.is_symlink()
                  and (p / package / "__init__.py").is_file() and p / package != chosen]
    except OSError:
        return []
    if not others:
        return []
    shown = ", ".join(f"{p.relative_to(root).as_posix()}/{package}/" for p in others[:3])
    graded = chosen.relative_to(root).as_posix() if chosen != root else "."
    return [f"graded {graded}/ (also found {shown}: not graded)"]


def open_submission(path: Path, workdir: Path) -> Path:
    """A folder to look for packages in: `path` itself, or a zip safely extracted to workdir."""
    if path.is_dir():
        return path
    if not path.exists():
        raise IntakeError(f"no such submission: {path}")
    if not zipfile.is_zipfile(path):
        raise IntakeError(f"{path.name} is neither a folder nor a valid zip file")
    dest = workdir / "unzipped"
    dest.mkdir(parents=True)
    try:
        with zipfile.ZipFile(path) as zf:
            _extract_safely(zf, dest)
    except UnicodeDecodeError:  # an entry flagged UTF-8 whose name is not
        raise IntakeError(f"{path.name}: a zip entry's name is flagged UTF-8 but is not valid "
                          f"UTF-8 (re-create the zip with your system's zip tool)") from None
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError,
            ValueError, OverflowError, MemoryError, LookupError) as e:
        detail = " ".join(str(e).split())[:200]
        raise IntakeError(f"{path.name}: the zip is damaged or unreadable "
                          f"({type(e).__name__}: {detail})") from None
    return dest


def _extract_safely(zf: zipfile.ZipFile, dest: Path) -> None:
    infos = zf.infolist()
    if len(infos) > MAX_ZIP_ENTRIES:
        raise IntakeError(f"the zip has {len(infos)} entries (limit {MAX_ZIP_ENTRIES})")
    total = compressed = 0
    for info in infos:
        name = info.filename
        parts = PurePosixPath(name.replace("\\", "/")).parts
        if name.startswith(("/", "\\")) or (parts and ":" in parts[0]) or ".." in parts:
            raise IntakeError(f"the zip entry {name!r} points outside the submission")
        if not parts or any(ord(c) < 32 for c in name) or len(parts) > MAX_DEPTH \
                or any(len(p.encode()) > MAX_NAME for p in parts):
            raise IntakeError(f"the zip entry {name[:80]!r} has an unusable name")
        compressed += info.compress_size
        mode = info.external_attr >> 16
        if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):  # 0: permissions only
            kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
            raise IntakeError(f"the zip entry {name!r} is {kind}")
        total += info.file_size
        if total > MAX_ZIP_TOTAL:
            raise IntakeError(f"the zip unpacks to more than {MAX_ZIP_TOTAL // 2**20} MB")
        if info.compress_size and info.file_size / info.compress_size > MAX_ZIP_RATIO \
                and info.file_size > 2**20:
            raise IntakeError(f"the zip entry {name!r} is compressed suspiciously well "
                              f"(a zip bomb?)")
    if total > 8 * 2**20 and total > MAX_ZIP_RATIO * max(compressed, 1):
        raise IntakeError("the zip is compressed suspiciously well as a whole (a zip bomb?)")
    for info in infos:
        target = dest.joinpath(*PurePosixPath(info.filename.replace("\\", "/")).parts)
        if info.is_dir():
            try:
                target.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise IntakeError(f"the zip entry {info.filename[:80]!r} cannot be unpacked "
                                  f"({e.strerror or type(e).__name__})") from None
            continue
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(target, "wb") as out:
                _copy_limited(src, out, info.file_size)
        except OSError as e:  # e.g. a file where the zip also has a folder of that name
            raise IntakeError(f"the zip entry {info.filename[:80]!r} cannot be unpacked "
                              f"({e.strerror or type(e).__name__})") from None


def _copy_limited(src, out, limit: int) -> int:
    done = 0
    while chunk := src.read(65536):
        done += len(chunk)
        if done > limit:
            raise IntakeError("a zip entry is larger than its header says")
        out.write(chunk)
    return done


def find_package(root: Path, package: str) -> Path | None:
    """The package folder at the root, one folder down, or the root itself."""
    candidates = [root / package, *sorted(p / package for p in root.iterdir()
                                          if p.is_dir() and not p.is_symlink())]
    if root.name == package:
        candidates.insert(0, root)
    for c in candidates:
        init = c / "__init__.py"
        if c.is_dir() and not c.is_symlink() and init.is_file() and not init.is_symlink():
            return c
    return None


def stage(package_dir: Path, assignment: Assignment, dest: Path) -> Staged:
    """Copy only the package's .py files to dest/<package>/ and check them statically:
    size limits, syntax, forbidden modules and attributes (forbidden.py)."""
    staged = Staged(dest)
    files, skipped, refused, total = [], [], [], 0
    for path in sorted(package_dir.rglob("*")):
        rel = path.relative_to(package_dir)
        if path.is_symlink():
            refused.append(f"{rel} (a symbolic link)")
            continue
        if not path.is_file() or "__pycache__" in rel.parts:
            continue
        if path.name in REFUSED_NAMES or path.suffix == ".pth":
            refused.append(f"{rel} (could change how the tests run)")
            continue
        if path.suffix == ".py" and (rel.parts[0] in SHADOWING or path.stem in SHADOWING):
            refused.append(f"{rel} (shadows the test stack module '{path.stem}')")
            continue
        if path.suffix != ".py":
            skipped.append(str(rel))
            continue
        size = path.stat().st_size
        total += size
        if size > MAX_PY_FILE:
            staged.problems.append(Reason(Cause.FILE_TOO_LARGE, file=f"{assignment.package}/{rel}",
                                       limit=MAX_PY_FILE))
        files.append(rel)
    if len(files) > MAX_PY_FILES or total > MAX_PY_TOTAL:
        staged.problems.append(Reason(Cause.PACKAGE_TOO_LARGE,
                                   detail=f"{len(files)} files, {total} bytes"))
    if skipped:
        shown = ", ".join(skipped[:5]) + (" ..." if len(skipped) > 5 else "")
        staged.notes.append(f"ignored {len(skipped)} file(s) that are not graded: {shown}")
    for item in refused[:10]:
        staged.notes.append(f"refused {assignment.package}/{item}: not staged")
    if len(refused) > 10:
        staged.notes.append(f"refused {len(refused) - 10} more file(s)")
    if Path("__init__.py") not in files:
        staged.problems.append(Reason(Cause.NO_INIT, module=assignment.package))
    if staged.problems:
        return staged
    for rel in files:
        text = (package_dir / rel).read_bytes()
        shown = f"{assignment.package}/{rel}"
        try:
            tree = parse(text, filename=shown)
        except SyntaxError as e:
            staged.problems.append(syntax_problem(shown, e))
            continue
        except (ValueError, RecursionError, MemoryError) as e:
            staged.problems.append(Reason(Cause.UNPARSABLE, file=shown, detail=str(e)[:200]))
            continue
        for name, rule, line, verb in forbidden_uses(tree, assignment.forbidden):
            staged.problems.append(Reason(Cause.FORBIDDEN_USE, file=shown, line=line, module=name,
                                       rule=rule, verb=verb))
        target = dest / assignment.package / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text)
    return staged


def syntax_problem(shown: str, e: SyntaxError) -> Reason:
    """The error, with the offending line (stripped) and the column of its caret where that
    line is short enough to show."""
    why = Reason(Cause.SYNTAX_ERROR, file=shown, line=e.lineno, detail=e.msg)
    text = (e.text or "").rstrip("\r\n")
    if not text.strip() or len(text) > 300:
        return why
    stripped = text.lstrip()
    column = max(min((e.offset or 1) - 1 - (len(text) - len(stripped)), len(stripped)), 0)
    return replace(why, source=stripped.expandtabs(), column=column)


def staging_dir(under: Path | None = None) -> Path:
    """A new private folder for one intake, in `under` (None: the system's temporary folder)."""
    return Path(tempfile.mkdtemp(prefix="intake-", dir=under))
