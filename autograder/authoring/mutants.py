"""Mutants: classic bugs, written as small edits of the reference solution.

solutions/mutants/<assignment>.toml holds `[[mutants]]` with `name`, `hint` and `[[mutants.edits]]`
(`file` relative to the solution package, `old` occurring exactly once, `new`).

(solutions/bugs/<assignment>.toml, independent bugs in the same edit format, are the hint
rule's test set: tests/selftest/test_bug_hints.py reads them.)
"""

from __future__ import annotations

import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..assignments import Assignment


class MutantError(Exception):
    """A mutant cannot be applied to the current solution."""


@dataclass(frozen=True)
class Mutant:
    name: str
    hint: str
    edits: tuple[tuple[str, str, str], ...]


def load_mutants(assignment: Assignment) -> list[Mutant]:
    if not assignment.mutants_file.exists():
        return []
    data = tomllib.loads(assignment.mutants_file.read_text(encoding="utf-8"))
    mutants = []
    for m in data.get("mutants", []):
        edits = tuple((e["file"], e["old"], e["new"]) for e in m.get("edits", []))
        if not edits:
            raise MutantError(f"mutant {m['name']} has no edits")
        mutants.append(Mutant(m["name"], m["hint"].strip(), edits))
    names = [m.name for m in mutants]
    if len(set(names)) != len(names):
        raise MutantError(f"{assignment.mutants_file}: duplicate mutant names")
    return mutants


def materialize(assignment: Assignment, mutant: Mutant, dest: Path) -> Path:
    """Write the mutated solution package under dest/<package>; returns dest."""
    pkg = dest / assignment.package
    shutil.copytree(assignment.solutions / assignment.package, pkg,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for file, old, new in mutant.edits:
        path = pkg / file
        text = path.read_text(encoding="utf-8")
        count = text.count(old)
        if count != 1:
            raise MutantError(f"mutant {mutant.name}: the text to replace occurs {count} times "
                              f"in {file} (must be exactly once)")
        path.write_text(text.replace(old, new), encoding="utf-8")
    return dest
