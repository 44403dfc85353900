"""A run folder: what goes in for one child and what comes back out of it. Trusted.

In: `prepare_run_dir` builds a fresh folder holding exactly what the child may see: the
harness, a copy of the implementation, the test files and their stored inputs, each as
`audiences.share("child-<visibility>", ...)` allows; never goldens, solutions or another
visibility's material. Out: `EventReader` reads the child's JSON-lines events file with size
caps (MAX_EVENTS_BYTES in all, MAX_EVENTS events, MAX_EVENT_BYTES a line), `tail` the end
of its stderr, `hang_site` where its last stack dump says it hung and `claimed_where` a test's
claimed raise site as bounded fields. What the events mean, deadlines and restarts are
runner.py's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path, PurePosixPath

from ..assignments import GRADED_INPUTS, Assignment
from ..audiences import share
from . import run_bytecode

HARNESS = Path(__file__).resolve().parent.parent / "harness"
MAX_EVENTS_BYTES = 64 * 2**20
# What the parent takes from one child's events file; the rest is counted and cut with a note.
MAX_EVENTS = 10_000  # events per child (a graded test needs two: start and end)
MAX_EVENT_BYTES = 8 * 2**20  # one event's line (the largest golden store is < 1 MiB)
TAIL_BYTES = 4000
DUMP_WINDOW_BYTES = 64_000  # where hang_site looks: a stack dump of 100 deep frames fits


def prepare_run_dir(assignment: Assignment, impl_root: Path, visibilities: tuple[str, ...],
                    inputs_base: Path | None, graded_public: bool = False) -> Path:
    """A fresh folder with exactly what the child needs: harness, implementation copy, test
    files, stored inputs, each as `audiences.share("child-<visibility>", ...)` allows. No
    goldens, no solutions, nothing else. With `graded_public`, the public tests' inputs are
    the graded input set (inputs/graded.json), placed where the published ones would be: the
    child cannot tell which set it runs on."""
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
            if share(f"child-{vis}", tests / vis / f.name):
                shutil.copy2(f, run / "tests" / vis / f.name)
                run_bytecode.place(run / "tests" / vis / f.name, rewritten=True)
        stored = GRADED_INPUTS if graded_public and vis == "public" else vis
        src = assignment.inputs_path(stored, inputs_base)
        if src.exists() and share(f"child-{vis}", tests / "inputs" / f"{stored}.json"):
            shutil.copy2(src, run / "inputs" / f"{vis}.json")
    if assignment.common_module.exists() and any(share(f"child-{v}", tests / "common.py")
                                                 for v in visibilities):
        shutil.copy2(assignment.common_module, run / "tests" / "common.py")
        run_bytecode.place(run / "tests" / "common.py", rewritten=False)
    (run / "tests" / "pytest.ini").write_text("[pytest]\n")
    for d in ("work", "tmp"):
        (run / d).mkdir()
    return run


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


def claimed_where(data: object) -> dict | None:
    """The child's claim of where a test raised, as plain bounded fields (or None)."""
    if not isinstance(data, dict) or not isinstance(data.get("file"), str) \
            or type(data.get("line")) is not int:
        return None
    function = data.get("function")
    return {"function": function[:200] if isinstance(function, str) else None,
            "file": data["file"][:200], "line": data["line"],
            "student": data.get("student") is True}


_DUMPED_FRAME = re.compile(r'File "[^"]*/impl/([^"]+)", line (\d+) in (\S+)')


def hang_site(stderr_tail: str) -> dict | None:
    """{"file", "line", "function"}: the innermost frame of the implementation in the child's
    last stack dump (faulthandler's, which harness/plugin.py writes shortly before a test's
    timeout), or None."""
    dump = stderr_tail.rsplit("Timeout (", 1)  # faulthandler's header; then each thread's stack
    match = _DUMPED_FRAME.search(dump[-1]) if len(dump) > 1 else None
    if match is None:
        return None
    return {"file": match.group(1), "line": int(match.group(2)), "function": match.group(3)}
