"""Automated mutation testing: every reference solution against its own graded suite.

Mutants come from cosmic-ray's core operators (binary, comparison and unary operator
replacement, boolean and number replacement, break/continue swaps, exception replacement,
decorator removal, zero-iteration loops), applied one at a time to a copy of
solutions/<package>/ on disk. A mutant is graded like any submission, by the engine
(`grading.pipeline.grade`: sandboxed child that only records, goldens judged in the
parent), and it is *killed* when it loses points. Public tests run first; hidden tests only run
when the public ones give full marks (losing points anywhere is enough).

Why cosmic-ray and not mutmut: cosmic-ray's model is "write one mutated module to disk, run any
command", which is exactly how the engine grades a submission (a folder, copied into a fresh
sandbox). mutmut 3 instruments every function with trampolines and picks the live mutant from
an environment variable, which the engine's scrubbed child environment (`python -I`, no
inherited variables) would not pass, and it runs pytest itself, outside the trusted parent.

A mutant is named by what a reader can find again: `file::function: old line => new line`
(`tests/<a>/EQUIVALENT_MUTANTS.md` lists the ones that cannot change any output the contract
fixes, by that name, each with its reason; an entry naming a line alone, `file::function: old
line`, is a line SPEC leaves free, and every mutant of it is out of the score). Mutants that
change only annotations (never evaluated under `from __future__ import annotations`), that do
not compile, or that repeat another mutant's code are dropped before sampling, and so are the
files the course gives the student whole (generation.py: no solution markers): mutation testing
measures the tests on what students write.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ...assignments import Assignment
from ...backends import Placement
from .accumulate import figures, lower_bound
from .generation import Mutation, MutationError, generate, sample
from .report import EQUIVALENT_FILE

__all__ = ["EQUIVALENT_FILE", "AssignmentMutation", "Mutation", "MutationError", "MutantVerdict",
           "equivalent_mutants", "figures", "generate", "grade_mutation", "lower_bound",
           "run_assignment", "sample"]

TARGET_SCORE = 0.95
_ENTRY = re.compile(r"^- `(?P<key>[^`]+)`\s*(?::|—|-)?\s*(?P<reason>.*)$")


@dataclass
class MutantVerdict:
    mutation: Mutation
    status: str  # killed | survived | equivalent
    where: str = ""  # e.g. "public: test_x, test_y" (killed), the reason (equivalent)
    seconds: float = 0.0


@dataclass
class AssignmentMutation:
    """What one assignment's run found."""

    assignment: str
    generated: int
    sampled: int
    outcomes: list[MutantVerdict] = field(default_factory=list)
    stale_equivalents: list[str] = field(default_factory=list)
    seconds: float = 0.0
    keys: list[str] = field(default_factory=list)  # every generated mutant's key

    def count(self, status: str) -> int:
        return sum(o.status == status for o in self.outcomes)

    @property
    def score(self) -> float | None:
        """killed / (graded non-equivalent); None when nothing was graded."""
        judged = self.count("killed") + self.count("survived")
        return self.count("killed") / judged if judged else None


class Equivalents(dict):
    """key -> reason of EQUIVALENT_MUTANTS.md. A key without " => " names a line that SPEC
    leaves free: it covers every mutant of that line (`in`, `[]` and `get` see them)."""

    def _entry(self, key: object) -> object:
        if dict.__contains__(self, key):
            return key
        if isinstance(key, str):
            return next((e for e in self.free_lines() if key.startswith(e + " => ")), None)
        return None

    def free_lines(self) -> list[str]:
        """The entries that name a line, not one mutant."""
        return [k for k in self.keys() if " => " not in k]

    def __contains__(self, key: object) -> bool:
        return self._entry(key) is not None

    def __getitem__(self, key: object) -> str:
        entry = self._entry(key)
        if entry is None:
            raise KeyError(key)
        return dict.__getitem__(self, entry)

    def get(self, key: object, default=None):
        return self[key] if key in self else default

    def stale(self, keys: list[str]) -> list[str]:
        """The entries that name no generated mutant (`keys`)."""
        generated = set(keys)
        return sorted(e for e in self.keys() if e not in generated
                      and not any(k.startswith(e + " => ") for k in generated))


def equivalent_mutants(assignment: Assignment) -> Equivalents:
    """tests/<a>/EQUIVALENT_MUTANTS.md: `- \\`KEY\\` reason` entries (reason may continue on
    indented lines). Returns key -> reason (Equivalents: a line's entry covers its mutants)."""
    path = assignment.tests_dir / EQUIVALENT_FILE
    if not path.exists():
        return Equivalents()
    entries = Equivalents()
    current = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = _ENTRY.match(line)
        if match:
            current = match["key"]
            if dict.__contains__(entries, current):
                raise MutationError(f"{path}:{number}: mutant listed twice: {current}")
            entries[current] = match["reason"].strip()
        elif current and line.startswith("  ") and line.strip():
            entries[current] = (dict.__getitem__(entries, current) + " " + line.strip()).strip()
        else:
            current = None
    missing = [k for k, reason in entries.items() if not reason]
    if missing:
        raise MutationError(f"{path}: no reason given for {missing[0]}")
    return entries


def grade_mutation(assignment: Assignment, mutation: Mutation,
                   placement: Placement | None = None) -> MutantVerdict:
    """Grade the mutated solution with the engine: killed when it loses points (on the host
    backend unless a placement is given, as a submission)."""
    from ...grading import pipeline
    from ...grading.job import GradeJob, JobMode

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"mutant-{assignment.name}-") as tmp:
        package = Path(tmp) / assignment.package
        shutil.copytree(assignment.solutions / assignment.package, package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        (package / mutation.file).write_text(mutation.code, encoding="utf-8")
        grade, = pipeline.grade(GradeJob(Path(tmp), assignment.root, JobMode.GRADE,
                                         (assignment.name,),
                                         placement=placement or Placement())).grades
    failed = [f"{t.visibility}: {t.id}" for t in grade.tests if t.points < t.max_points]
    if failed:
        where = ", ".join(failed[:4]) + (f" (+{len(failed) - 4})" if len(failed) > 4 else "")
        return MutantVerdict(mutation, "killed", where, time.monotonic() - started)
    return MutantVerdict(mutation, "survived", "", time.monotonic() - started)


def run_assignment(assignment: Assignment, n: int | None = None, seed: int = 0,
                   progress: Callable[[str], None] | None = None,
                   only: list[str] | None = None) -> AssignmentMutation:
    """Generate the mutants, grade a seeded sample of n (all when None), or only the mutants
    keyed in `only` (MutationError naming one that is not generated); listed equivalent
    mutants are not graded."""
    started = time.monotonic()
    mutations = generate(assignment)
    equivalents = equivalent_mutants(assignment)
    if only is not None:
        by_key = {m.key: m for m in mutations}
        unknown = [k for k in only if k not in by_key]
        if unknown:
            raise MutationError(f"{assignment.name}: no such mutant: {unknown[0]}")
        chosen = [by_key[k] for k in dict.fromkeys(only)]
    else:
        chosen = sample(mutations, n, seed, assignment.name)
    result = AssignmentMutation(assignment.name, len(mutations), len(chosen),
                                stale_equivalents=equivalents.stale([m.key for m in mutations]))
    for i, mutation in enumerate(chosen, 1):
        if mutation.key in equivalents:
            outcome = MutantVerdict(mutation, "equivalent", equivalents[mutation.key])
        else:
            outcome = grade_mutation(assignment, mutation)
        result.outcomes.append(outcome)
        if progress:
            progress(f"{assignment.name} [{i}/{len(chosen)}] {outcome.status:<10} "
                     f"{outcome.seconds:5.1f} s  {mutation.key}"
                     + (f"  [{outcome.where}]" if outcome.status == "killed" else ""))
    result.seconds = time.monotonic() - started
    result.keys = [m.key for m in mutations]
    return result


