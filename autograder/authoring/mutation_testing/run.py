"""`python -m autograder mutation`: grade each assignment's seeded sample (or named mutants) and
add the verdicts to the accumulated report (accumulate.py, rendered by report.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from ...assignments import Assignment
from . import TARGET_SCORE, MutationError, equivalent_mutants, run_assignment
from .accumulate import command_sample, figures, is_old, merge, reclassified, upgrade
from .generation import generate, sample
from .report import (
    data_path,
    percent_text,
    previous_summaries,
    render_report,
    report_data,
    report_path,
)


def _command(name: str, n: int | None, seed: int, only: list[str] | None) -> str:
    if only is not None:
        return f"python -m autograder mutation {name} " + " ".join(
            f"--mutant '{k}'" for k in only)
    return (f"python -m autograder mutation {name}"
            + (f" --sample {n}" if n is not None else "") + f" --seed {seed}")


def stored_summaries(path: Path, present: dict[str, Assignment]) -> dict[str, dict]:
    """The report's accumulated summaries; ones in the previous format are upgraded by
    redrawing their run's seeded sample from the mutants generated now (accumulate.upgrade)."""
    summaries = {}
    for name, d in previous_summaries(path).items():
        if is_old(d):
            n, seed = command_sample(d["command"])
            keys = ([m.key for m in sample(generate(present[name]), None, seed, name)]
                    if name in present else None)
            d = upgrade(d, keys, equivalent_mutants(present[name]) if name in present else {})
        summaries[name] = d
    return summaries


def write_report(path: Path, summaries: dict[str, dict], present: dict[str, Assignment]) -> list[dict]:
    """Reclassify against the current equivalent lists and write the report and its data
    (teaching order)."""
    summaries = {name: reclassified(d, equivalent_mutants(present[name]))
                 if name in present else d for name, d in summaries.items()}
    order = list(present)
    ordered = sorted(summaries.values(), key=lambda d: order.index(d["assignment"])
                     if d["assignment"] in order else len(order))
    path.write_text(render_report(ordered), encoding="utf-8")
    data_path(path).write_text(report_data(ordered) + "\n", encoding="utf-8")
    return ordered


def run_mutation(names: list[str], n: int | None = None, seed: int = 0,
                 report: Path | None = None, only: list[str] | None = None) -> int:
    """`python -m autograder mutation`: run the named assignments (default: all), one at a
    time, print progress and survivors, and add each run's verdicts to the report's
    accumulated sample (other assignments' figures are kept). `only`: grade just these mutant
    keys (one assignment). Exit status 1 when an assignment scores below TARGET_SCORE, 2 on a
    bad list."""
    from ...assignments import course_root, discover, load

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
        summaries[assignment.name] = dict(merged, stale_equivalents=result.stale_equivalents,
                                          free_lines=equivalent_mutants(assignment).free_lines())
        ordered = write_report(path, summaries, present)  # after each assignment
        f = figures(next(d for d in ordered if d["assignment"] == assignment.name))
        print(f"{assignment.name}: {result.generated} mutants, {result.sampled} graded now, "
              f"{result.count('killed')} killed, {result.count('survived')} survived, "
              f"{result.count('equivalent')} equivalent ({result.seconds:.0f} s); "
              f"accumulated: {f['graded']} graded, score {percent_text(f['score'])}, "
              f"{percent_text(f['lower_bound'])} lower bound", flush=True)
        if f["score"] is not None and f["score"] < TARGET_SCORE:
            low.append(assignment.name)
    print(f"report: {path}")
    if low:
        print(f"below {100 * TARGET_SCORE:g} %: {', '.join(low)}")
    return 1 if low else 0
