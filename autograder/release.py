"""The student release: the course without anything that gives answers away.

Left out: solutions/ (and its mutants), hidden tests with their inputs and goldens, the
course's self-tests, the bundled examples (they hold solution code) and the benchmarks (they
import solutions). Public goldens stay: `make check` compares against them locally.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from .assignments import course_root

EXCLUDED_TOP = {"solutions", "examples", "bench", ".git", ".venv", "out", ".ci"}
EXCLUDED_NAMES = {"__pycache__", ".hypothesis", ".pytest_cache"}


def _ignore(directory: str, names: list[str]) -> set[str]:
    d = Path(directory)
    skip = {n for n in names if n in EXCLUDED_NAMES or n.endswith(".egg-info")
            or n.startswith("crosscheck_")}  # instructor scripts that read hidden goldens
    if d == course_root():
        skip |= {n for n in names if n in EXCLUDED_TOP}
    if d == course_root() / "tests":
        skip.add("selftest")
    if d.parent == course_root() / "tests":
        skip.add("hidden")
    if d.name in ("goldens", "inputs") and d.parent.parent == course_root() / "tests":
        skip.add("hidden.json")
    return skip


def build_release(dest: Path) -> Path:
    """Copy the student release into dest (which must not exist yet)."""
    if dest.exists():
        raise FileExistsError(f"{dest} exists; choose a new folder")
    shutil.copytree(course_root(), dest, ignore=_ignore)
    return dest
