"""What many self-tests need, defined once: the toy course's solution text, a submission folder
holding one toy package, and a scan of /proc for processes a test must not leave behind.

Importable as `helpers` (pyproject.toml's pytest `pythonpath` puts tests/selftest on sys.path).
Fixtures stay in conftest.py; these are plain values and functions, usable at import time.
"""

from __future__ import annotations

import os
from pathlib import Path

from autograder.authoring.starter import without_markers

TOY = Path(__file__).resolve().parent / "toy_course"
# the toy solution without its BEGIN/END SOLUTION marker lines (tests edit its code by text)
SOLUTION = without_markers((TOY / "solutions" / "toy" / "__init__.py").read_text())
SOURCES = ("cmdline", "environ", "cwd")


def submission(tmp_path: Path, source: str, name: str = "sub") -> Path:
    """tmp_path/name/ holding one package, toy/__init__.py = `source`; returns tmp_path/name."""
    pkg = tmp_path / name / "toy"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(source)
    return tmp_path / name


def _seen(proc: Path, sources: tuple[str, ...]) -> bytes:
    seen = b""
    for source in sources:
        if source == "cwd":
            seen += os.readlink(proc / "cwd").encode()
        else:
            seen += (proc / source).read_bytes()
    return seen


def processes_mentioning(marker: str, sources: tuple[str, ...] = ("cmdline", "cwd")) -> list[int]:
    """The pids of the processes other than this one whose `sources` (of SOURCES: the command
    line, the environment, the working folder) mention `marker`. A process that is gone or
    unreadable while scanned is skipped."""
    unknown = set(sources) - set(SOURCES)
    if unknown:
        raise ValueError(f"unknown /proc sources {sorted(unknown)} (known: {SOURCES})")
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            seen = _seen(proc, sources)
        except OSError:
            continue
        if marker.encode() in seen:
            found.append(int(proc.name))
    return found


def command_lines() -> dict[int, list[bytes]]:
    """{pid: argv} of every process readable now (this one included)."""
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            found[int(proc.name)] = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
    return found
