"""Automated mutation testing: every reference solution against its own graded suite.

Mutants come from cosmic-ray's core operators (binary, comparison and unary operator
replacement, boolean and number replacement, break/continue swaps, exception replacement,
decorator removal, zero-iteration loops), applied one at a time to a copy of
solutions/<package>/ on disk. A mutant is graded like any submission, by the engine
(`grading.grade_submission_root`: sandboxed child that only records, goldens judged in the
parent), and it is *killed* when it loses points. Public tests run first; hidden tests only run
when the public ones give full marks (losing points anywhere is enough).

Why cosmic-ray and not mutmut: cosmic-ray's model is "write one mutated module to disk, run any
command", which is exactly how the engine grades a submission (a folder, copied into a fresh
sandbox). mutmut 3 instruments every function with trampolines and picks the live mutant from
an environment variable, which the engine's scrubbed child environment (`python -I`, no
inherited variables) would not pass, and it runs pytest itself, outside the trusted parent.

A mutant is named by what a reader can find again: `file::function: old line => new line`
(`tests/<a>/EQUIVALENT_MUTANTS.md` lists the ones that cannot change any output the contract
fixes, by that name, each with its reason). Mutants that change only annotations (never
evaluated under `from __future__ import annotations`), that do not compile, or that repeat
another mutant's code are dropped before sampling.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..assignments import Assignment
from .accumulate import command_sample, figures, is_old, lower_bound, merge, reclassified, upgrade
from .generation import Mutation, MutationError, generate, sample
from .report import EQUIVALENT_FILE, previous_summaries, render_report, report_path, with_readme_table

__all__ = ["EQUIVALENT_FILE", "AssignmentMutation", "Mutation", "MutationError", "Outcome",
           "equivalent_mutants", "figures", "generate", "grade_mutation", "lower_bound",
           "run_assignment", "run_mutation", "sample", "stored_summaries"]

TARGET_SCORE = 0.95
_ENTRY = re.compile(r"^- `(?P<key>[^`]+)`\s*(?::|—|-)?\s*(?P<reason>.*)$")


@dataclass
class Outcome:
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
    outcomes: list[Outcome] = field(default_factory=list)
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


def equivalent_mutants(assignment: Assignment) -> dict[str, str]:
    """tests/<a>/EQUIVALENT_MUTANTS.md: `- \\`KEY\\` reason` entries (reason may continue on
    indented lines). Returns key -> reason."""
    path = assignment.tests_dir / EQUIVALENT_FILE
    if not path.exists():
        return {}
    entries: dict[str, str] = {}
    current = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = _ENTRY.match(line)
        if match:
            current = match["key"]
            if current in entries:
                raise MutationError(f"{path}:{number}: mutant listed twice: {current}")
            entries[current] = match["reason"].strip()
        elif current and line.startswith("  ") and line.strip():
            entries[current] = (entries[current] + " " + line.strip()).strip()
        else:
            current = None
    missing = [k for k, reason in entries.items() if not reason]
    if missing:
        raise MutationError(f"{path}: no reason given for {missing[0]}")
    return entries


def grade_mutation(assignment: Assignment, mutation: Mutation) -> Outcome:
    """Grade the mutated solution with the engine: killed when it loses points."""
    from ..grading import grade_submission_root

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"mutant-{assignment.name}-") as tmp:
        package = Path(tmp) / assignment.package
        shutil.copytree(assignment.solutions / assignment.package, package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        (package / mutation.file).write_text(mutation.code, encoding="utf-8")
        for visibility in ("public", "hidden"):
            grade = grade_submission_root(assignment, Path(tmp), (visibility,))
            if grade.score < grade.max_score:
                failed = [t.id for t in grade.tests if not t.passed]
                where = f"{visibility}: " + ", ".join(failed[:4]) + (
                    f" (+{len(failed) - 4})" if len(failed) > 4 else "")
                return Outcome(mutation, "killed", where, time.monotonic() - started)
    return Outcome(mutation, "survived", "", time.monotonic() - started)


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
                                stale_equivalents=sorted(set(equivalents)
                                                         - {m.key for m in mutations}))
    for i, mutation in enumerate(chosen, 1):
        if mutation.key in equivalents:
            outcome = Outcome(mutation, "equivalent", equivalents[mutation.key])
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


def _command(name: str, n: int | None, seed: int, only: list[str] | None) -> str:
    if only is not None:
        return f"python -m autograder mutation {name} " + " ".join(
            f"--mutant '{k}'" for k in only)
    return (f"python -m autograder mutation {name}"
            + (f" --sample {n}" if n is not None else "") + f" --seed {seed}")


def stored_summaries(path: Path, present: dict[str, Assignment]) -> dict[str, dict]:
    """The report's accumulated summaries; ones in the previous format are upgraded by
    redrawing their run's seeded sample from today's mutants (accumulate.upgrade)."""
    summaries = {}
    for name, d in previous_summaries(path).items():
        if is_old(d):
            n, seed = command_sample(d["command"])
            keys = ([m.key for m in sample(generate(present[name]), None, seed, name)]
                    if name in present else None)
            d = upgrade(d, keys, equivalent_mutants(present[name]) if name in present else {})
        summaries[name] = d
    return summaries


def _write(path: Path, summaries: dict[str, dict], present: dict[str, Assignment]) -> list[dict]:
    """Reclassify against today's equivalent lists, write the report (teaching order) and,
    for the course's own report, README's mutation table."""
    from ..assignments import course_root

    summaries = {name: reclassified(d, equivalent_mutants(present[name]))
                 if name in present else d for name, d in summaries.items()}
    order = list(present)
    ordered = sorted(summaries.values(), key=lambda d: order.index(d["assignment"])
                     if d["assignment"] in order else len(order))
    path.write_text(render_report(ordered), encoding="utf-8")
    readme = course_root() / "README.md"
    if path.resolve() == report_path(course_root()).resolve() and readme.exists():
        text = readme.read_text(encoding="utf-8")
        updated = with_readme_table(text, ordered)
        if updated != text:
            readme.write_text(updated, encoding="utf-8")
    return ordered


def run_mutation(names: list[str], n: int | None = None, seed: int = 0,
                 report: Path | None = None, only: list[str] | None = None) -> int:
    """`python -m autograder mutation`: run the named assignments (default: all), one at a
    time, print progress and survivors, and add each run's verdicts to the report's
    accumulated sample (other assignments' figures are kept). `only`: grade just these mutant
    keys (one assignment). Exit status 1 when an assignment scores below TARGET_SCORE, 2 on a
    bad list."""
    from ..assignments import course_root, discover, load

    assignments = [load(a) for a in names] if names else discover()
    if only is not None and len(assignments) != 1:
        print("error: --mutant needs exactly one assignment")
        return 2
    path = report or report_path(course_root())
    present = {a.name: a for a in discover()}
    summaries = stored_summaries(path, present)
    low = []
    for assignment in assignments:
        try:
            result = run_assignment(assignment, n, seed,
                                    progress=lambda line: print(line, flush=True), only=only)
        except MutationError as e:
            print(f"error: {e}")
            return 2
        run = {"command": _command(assignment.name, n, seed, only), "seed": seed, "sample": n,
               "date": datetime.now(UTC).date().isoformat(),
               "seconds": round(result.seconds)}
        before = summaries.get(assignment.name)
        merged = merge(before, assignment.name, result.keys,
                       {o.mutation.key: o.status for o in result.outcomes}, run)
        gone = sorted(set(before["mutants"]) - set(merged["mutants"])) if before else []
        for key in gone:
            print(f"{assignment.name}: dropped (no longer generated): {key}", flush=True)
        summaries[assignment.name] = merged
        ordered = _write(path, summaries, present)  # after each assignment
        f = figures(next(d for d in ordered if d["assignment"] == assignment.name))
        print(f"{assignment.name}: {result.generated} mutants, {result.sampled} graded now, "
              f"{result.count('killed')} killed, {result.count('survived')} survived, "
              f"{result.count('equivalent')} equivalent ({result.seconds:.0f} s); "
              f"accumulated: {f['graded']} graded, score {_percent(f['score'])}, "
              f"{_percent(f['lower_bound'])} lower bound", flush=True)
        if f["score"] is not None and f["score"] < TARGET_SCORE:
            low.append(assignment.name)
    print(f"report: {path}")
    if low:
        print(f"below {100 * TARGET_SCORE:g} %: {', '.join(low)}")
    return 1 if low else 0


def _percent(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"
