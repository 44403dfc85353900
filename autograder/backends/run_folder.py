"""A run folder: what goes in for one child and what comes back out of it. Trusted.

In: `prepare_run_dir` builds a fresh folder holding exactly what the child may see: the
harness, a copy of the implementation, the test files and their stored inputs, each as
`audiences.share("child-<visibility>", ...)` allows; never goldens, solutions or another
visibility's material. Out: `EventReader` reads the child's JSON-lines events file with size
caps (MAX_EVENTS_BYTES in all, MAX_EVENTS events, MAX_EVENT_BYTES a line), `tail` the end
of its stderr, `hang_site` where its last stack dump says it hung, `claimed_where` a test's
claimed raise site and `claimed_cause` what else its end event claims, as bounded fields,
`ended` a test's end event into its `TestRecord`; `stop_cause` and `collect_cause` word none of
it: they make the `causes.Reason` of a stopped child and of a collection error.
`package_names` says which names of the package the child stands in for when it lacks them.
What the events mean, deadlines and restarts are runner.py's.
"""

from __future__ import annotations

import ast
import builtins
import functools
import json
import os
import re
import shutil
import tempfile
from enum import Enum
from pathlib import Path, PurePosixPath

from ..assignments import Assignment
from ..audiences import STUBBED, share
from ..harness.output import TAIL_CHARS
from ..markers import strip_solutions
from ..sandbox.threadsafe_ast import parse
from . import run_bytecode
from .base import Outcome, Status, TestRecord
from .causes import Cause, Reason

HARNESS = Path(__file__).resolve().parent.parent / "harness"
MAX_EVENTS_BYTES = 64 * 2**20
# What the parent takes from one child's events file; the rest is counted and cut with a note.
MAX_EVENTS = 10_000  # events per child (a graded test needs two: start and end)
MAX_EVENT_BYTES = 8 * 2**20  # one event's line (the largest golden store is < 1 MiB)
TAIL_BYTES = 4000
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w{0,99}\.[A-Za-z_]\w{0,99}", re.ASCII)  # package.name
DUMP_WINDOW_BYTES = 64_000  # where hang_site looks: a stack dump of 100 deep frames fits


class Stop(Enum):
    """Why the parent stopped watching a child (runner.py)."""

    EXIT = "exit"  # it exited, or reported all it will (its `done`)
    TIMEOUT = "timeout"  # the test in progress passed its limit
    RUN_TIMEOUT = "run_timeout"  # the run's deadline passed
    IDLE = "idle"  # no test started within the time a test may take after the last one


def prepare_run_dir(assignment: Assignment, impl_root: Path, visibilities: tuple[str, ...],
                    inputs_base: Path | None, gen: bool = False) -> Path:
    """A fresh folder with exactly what the child needs: harness, implementation copy, test
    files, stored inputs, each as `audiences.share("child-<visibility>", ...)` allows. No
    goldens, no solutions, nothing else. The inputs are `inputs/<visibility>.json` under
    `inputs_base` (a grading's draw, grading/draws.py), else the course's published ones: the
    child cannot tell which set it runs on. A file the share stubs keeps its solution regions
    (golden-time code) only in a `gen` run, the reference's own."""
    run = Path(tempfile.mkdtemp(prefix=f"grade-{assignment.name}-"))
    lib = run / "lib" / "autograder"
    (lib / "harness").mkdir(parents=True)
    for f in sorted(HARNESS.glob("*.py")):  # the harness is one flat package
        if any(share(f"child-{v}", f"autograder/harness/{f.name}") for v in visibilities):
            shutil.copy2(f, lib / "harness" / f.name)
            run_bytecode.place(lib / "harness" / f.name, rewritten=False)
    (lib / "__init__.py").write_text("")
    pkg = impl_root / assignment.package
    shutil.copytree(pkg, run / "impl" / assignment.package,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    tests = PurePosixPath("tests", assignment.name)
    (run / "inputs").mkdir()
    for vis in visibilities:
        (run / "tests" / vis).mkdir(parents=True)
        for f in assignment.test_files(vis):
            how = share(f"child-{vis}", tests / vis / f.name)
            if how:
                _copy(f, run / "tests" / vis / f.name, how == STUBBED and not gen)
                run_bytecode.place(run / "tests" / vis / f.name, rewritten=True)
        src = assignment.inputs_path(vis, inputs_base)
        if src.exists() and share(f"child-{vis}", tests / "inputs" / f"{vis}.json"):
            shutil.copy2(src, run / "inputs" / f"{vis}.json")
    hows = {share(f"child-{v}", tests / "common.py") for v in visibilities} - {None}
    if assignment.common_module.exists() and hows:
        _copy(assignment.common_module, run / "tests" / "common.py",
              STUBBED in hows and not gen)
        run_bytecode.place(run / "tests" / "common.py", rewritten=False)
    (run / "tests" / "pytest.ini").write_text("[pytest]\n")
    for d in ("work", "tmp"):
        (run / d).mkdir()
    return run


def _copy(source: Path, dest: Path, stubbed: bool) -> None:
    """A course file into the run folder: whole, or through the starter rule."""
    if stubbed:
        dest.write_text(strip_solutions(source.read_text(encoding="utf-8"), str(source)),
                        encoding="utf-8")
    else:
        shutil.copy2(source, dest)


def package_names(assignment: Assignment, visibilities: tuple[str, ...]) -> list[str]:
    """The names the test files of `visibilities` and common.py import from the assignment's
    package (`from <package> import name`, or `package.name` after `import <package>`,
    anywhere in them), sorted: the child stands in
    for each one the package lacks (harness/missing_names.py), so one missing function fails
    only the tests that use it. The tests call only the handout's API (test_contract.py
    checks each name is in its table), so these are contract names. Each file is parsed once
    per version (`_imported_names`: by path, size, mtime and inode, as draws.py
    identifies course files): every child of a grading asks."""
    files = [f for v in visibilities for f in assignment.test_files(v)]
    if assignment.common_module.exists():
        files.append(assignment.common_module)
    names: set[str] = set()
    for f in files:
        try:
            st = f.stat()
        except OSError:
            continue
        names |= _imported_names(str(f), st.st_size, st.st_mtime_ns, st.st_ino,
                                 assignment.package)
    return sorted(names)


@functools.lru_cache(maxsize=256)
def _imported_names(path: str, size: int, mtime_ns: int, inode: int,
                    package: str) -> frozenset[str]:
    """package_names' names of one file (the version with that size, mtime and inode)."""
    try:
        tree = parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    bound = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
             for a in node.names if a.name == package}  # `import pkg`: pkg.name
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == package and not node.level:
            names |= {a.name for a in node.names if a.name != "*"}
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in bound:
            names.add(node.attr)
    return frozenset(names)


class EventReader:
    """Reads the JSON-lines events file incrementally, bounded: at most MAX_EVENTS_BYTES in
    all, MAX_EVENTS events and MAX_EVENT_BYTES per line; bad lines are skipped. `cut` counts
    the lines not taken (too many, too long): the parent says so, never parses them."""

    def __init__(self, path: Path):
        self.path, self.offset, self.buffer = path, 0, b""
        self.taken, self.cut = 0, 0

    def read(self) -> list[dict]:
        """The events appended since the last read (the file is opened only when it grew)."""
        try:
            if self.offset >= MAX_EVENTS_BYTES or os.stat(self.path).st_size <= self.offset:
                return []
        except OSError:
            return []
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            chunk = f.read(MAX_EVENTS_BYTES - self.offset)
        self.offset += len(chunk)
        lines = (self.buffer + chunk).split(b"\n")
        self.buffer = lines.pop()
        if len(self.buffer) > MAX_EVENT_BYTES:  # a line still growing past the cap: drop it
            self.buffer, self.cut = b"", self.cut + 1
        room = MAX_EVENTS - self.taken
        if len(lines) > room:
            self.cut += len(lines) - max(room, 0)
            lines = lines[:max(room, 0)]
        events = []
        for line in lines:
            self.taken += 1
            if len(line) > MAX_EVENT_BYTES:
                self.cut += 1
                continue
            try:
                event = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(event, dict) and isinstance(event.get("ev"), str):
                events.append(event)
        return events


def tail(path: Path, size: int = TAIL_BYTES) -> str:
    """The last `size` bytes of a file the child wrote (its stderr), decoded; "" if absent."""
    if not path.exists():
        return ""
    with open(path, "rb") as f:
        f.seek(max(0, path.stat().st_size - size))
        return f.read().decode("utf-8", "replace")


def claimed_cause(event: dict, error_type: str | None) -> Reason | None:
    """What a test's end event claims beside the error it raised, as a bounded cause: the
    module a blocker refused (`forbidden`, with an ImportError), or the name of the package a
    placeholder stood for (`missing`, `package.name`, with a NotImplementedError); else None."""
    module, missing = event.get("forbidden"), event.get("missing")
    if isinstance(module, str) and error_type in ("ImportError", "ModuleNotFoundError"):
        return Reason(Cause.FORBIDDEN_IMPORT, module=module[:200])
    if isinstance(missing, str) and _DOTTED_NAME.fullmatch(missing) \
            and error_type == "NotImplementedError":
        return Reason(Cause.MISSING_NAME, function=missing)
    return None


_BUILTIN_EXCEPTIONS = {n for n, v in vars(builtins).items()
                       if isinstance(v, type) and issubclass(v, BaseException)}


def ended(rec: TestRecord, ev: dict, redact: bool) -> None:
    """Fill `rec` from the child's end event of its test, every field bounded and of its type;
    for a `redact`ed child (hidden, or public on the graded inputs) nothing that would be shown:
    no raise site, no printed output, and an exception's type only when it is a builtin."""
    rec.status = Status.ENDED
    seconds = ev.get("seconds")
    if type(seconds) is float and 0.0 <= seconds < 1e6:
        rec.seconds = seconds
    rec.outcome = Outcome.PASSED if ev.get("outcome") == Outcome.PASSED else Outcome.FAILED
    rec.error = str(ev["error"])[:2000] if ev.get("error") else None
    rec.error_type = str(ev["error_type"])[:100] if ev.get("error_type") else None
    if redact and rec.error_type not in _BUILTIN_EXCEPTIONS:
        rec.error_type = None  # a hidden test's failure may name only a builtin exception
    kind = ev.get("error_kind")
    rec.error_kind = kind if isinstance(kind, str) and kind in _BUILTIN_EXCEPTIONS else None
    rec.obs = ev.get("obs") if isinstance(ev.get("obs"), list) else []
    rec.meta = ev.get("meta") if isinstance(ev.get("meta"), dict) else None
    rec.where = None if redact else claimed_where(ev.get("where"))
    rec.returned = claimed_returns(ev.get("returned"))
    printed = ev.get("output")
    rec.output = printed[-TAIL_CHARS:] if isinstance(printed, str) and printed \
        and not redact else None
    rec.inputs = ev.get("inputs")
    rec.cause = claimed_cause(ev, rec.error_type)


def claimed_where(data: object) -> dict | None:
    """The child's claim of where a test raised, as plain bounded fields (or None)."""
    if not isinstance(data, dict) or not isinstance(data.get("file"), str) \
            or type(data.get("line")) is not int:
        return None
    function = data.get("function")
    return {"function": function[:200] if isinstance(function, str) else None,
            "file": data["file"][:200], "line": data["line"],
            "student": data.get("student") is True}


def claimed_returns(data: object) -> dict[str, list[dict]] | None:
    """The child's record of the types the contract's functions returned in a test
    (harness/returned.py), as bounded plain fields: {function: [{"classes": [str], "dtype":
    str | None}]}; None when there is none or it is not that."""
    if not isinstance(data, dict):
        return None
    kept: dict[str, list[dict]] = {}
    for name, types in list(data.items())[:64]:
        if not isinstance(name, str) or not isinstance(types, list):
            continue
        kept[name[:200]] = [
            {"classes": [c[:200] for c in t["classes"][:12] if isinstance(c, str)],
             "dtype": t["dtype"][:100] if isinstance(t.get("dtype"), str) else None}
            for t in types[:4] if isinstance(t, dict) and isinstance(t.get("classes"), list)]
    return kept or None


_DUMPED_FRAME = re.compile(r'File "[^"]*/impl/([^"]+)", line (\d+) in (\S+)')


def hang_site(stderr_tail: str) -> dict | None:
    """{"file", "line", "function"}: the innermost frame of the implementation in the child's
    last stack dump (harness/hang_dump.py writes it, in faulthandler's format, shortly before
    a test's timeout), or None."""
    dump = stderr_tail.rsplit("Timeout (", 1)  # the dump's header; then the stack
    match = _DUMPED_FRAME.search(dump[-1]) if len(dump) > 1 else None
    if match is None:
        return None
    return {"file": match.group(1), "line": int(match.group(2)), "function": match.group(3)}


def file_size(path: Path) -> int:
    """The size of a file the child wrote; 0 if absent."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def collect_cause(ev: dict, file: str) -> Reason:
    """A collection error event as a cause: the package's import that a blocker refused or
    that failed (the child's `import` site), else the test file's own error (pytest's text,
    and the exception's line as `last`: the same error in another file is the same cause)."""
    site, module = ev.get("import"), ev.get("forbidden")
    if isinstance(site, dict) and type(site.get("line")) is int:
        at = {"file": str(site.get("file"))[-1500:], "line": site["line"]}
        if isinstance(module, str):
            return Reason(Cause.FORBIDDEN_IMPORT, module=module[:200], **at)
        return Reason(Cause.PACKAGE_IMPORT, detail=str(site.get("error"))[-1500:],
                   source=str(site.get("source") or "")[-1500:] or None, **at)
    raised = ev.get("exception")
    return Reason(Cause.COLLECT_ERROR, file=file, detail=str(ev.get("error"))[-1500:],
               last=raised[-300:] if isinstance(raised, str) and raised else None)


def stop_cause(reason: Stop, limit: float, stderr_tail: str, status: int | None) -> Reason:
    """Why the child stopped during a test: its timeout (where it hung, from the child's last
    stack dump, which `stderr_tail` must hold whole: DUMP_WINDOW_BYTES), the run's deadline,
    or a crash (its exit status, its last stderr line)."""
    if reason is Stop.TIMEOUT:
        return Reason(Cause.TEST_TIMEOUT, limit=limit, **(hang_site(stderr_tail) or {}))
    if reason is Stop.RUN_TIMEOUT:
        return Reason(Cause.RUN_STOPPED)
    last = stderr_tail.strip().splitlines()[-1:] if stderr_tail.strip() else []
    return Reason(Cause.CRASHED, last=last[0][:300] if last else None, status=status)
