"""starter/ is generated from the marked solutions: one source per function.

A solution marks what the student writes (the convention of nbgrader and Otter Assign):

    def f(x):
        \"\"\"The contract (kept in the starter).\"\"\"
        ### BEGIN SOLUTION
        ...reference code...
        ### END SOLUTION

In the starter, each marked region becomes one line `raise NotImplementedError`
(`markers.strip_solutions`); files without markers and non-.py files are copied as they are.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..assignments import Assignment
from ..markers import strip_solutions

SKIPPED = ("__pycache__", ".pytest_cache", ".hypothesis")


def _source_files(package_dir: Path) -> list[Path]:
    return sorted(p for p in package_dir.rglob("*") if p.is_file()
                  and not any(part in SKIPPED for part in p.relative_to(package_dir).parts)
                  and p.suffix != ".pyc")


def generate(assignment: Assignment) -> dict[str, str | bytes]:
    """The starter's files, by path relative to starter/ ("minigrad/engine.py"): .py files as
    text with the solutions stripped, every other file as its bytes."""
    source = assignment.solutions / assignment.package
    files: dict[str, str | bytes] = {}
    for path in _source_files(source):
        rel = path.relative_to(assignment.solutions).as_posix()
        if path.suffix == ".py":
            files[rel] = strip_solutions(path.read_text(encoding="utf-8"), rel)
        else:
            files[rel] = path.read_bytes()
    return files


def _as_bytes(content: str | bytes) -> bytes:
    return content.encode("utf-8") if isinstance(content, str) else content


def stale(assignment: Assignment) -> list[str]:
    """How the committed starter differs from the generated one (empty: current)."""
    wanted = {rel: _as_bytes(c) for rel, c in generate(assignment).items()}
    package = assignment.starter / assignment.package
    present = {p.relative_to(assignment.starter).as_posix(): p
               for p in (_source_files(package) if package.is_dir() else [])}
    problems = [f"starter/{rel} is missing" for rel in sorted(wanted.keys() - present.keys())]
    problems += [f"starter/{rel} has no source in solutions/"
                 for rel in sorted(present.keys() - wanted.keys())]
    problems += [f"starter/{rel} differs from what its solution generates" for rel in
                 sorted(wanted.keys() & present.keys()) if present[rel].read_bytes() != wanted[rel]]
    return problems


def write_starter(assignment: Assignment) -> list[Path]:
    """Replace starter/<package> with the generated files; returns the files written."""
    package = assignment.starter / assignment.package
    files = generate(assignment)  # first: a marker error leaves the old starter in place
    if package.exists():
        shutil.rmtree(package)
    written = []
    for rel, content in files.items():
        path = assignment.starter / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_as_bytes(content))
        written.append(path)
    return written
