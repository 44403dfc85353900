"""The class report in Markdown: score histogram per assignment (in a code block), pass rate
per task and per test (public and hidden apart; denominator = the students graded), the
misconceptions counted once per student, the rejected submissions with what was found instead,
and suspiciously similar submissions."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from .assignments import Assignment
from .gradebook import task_of
from .similarity import clusters

BINS = 10


def histogram(percents: list[float]) -> list[str]:
    bins = Counter(min(int(p // (100 / BINS)), BINS - 1) for p in percents)
    width = 100 // BINS
    return [f"{b * width:3d}-{b * width + width - 1 if b < BINS - 1 else 100:3d}% | "
            f"{'#' * bins[b]} {bins[b]}" for b in range(BINS)]


def pass_rates(results: dict[str, dict], a: Assignment) -> tuple[dict, dict]:
    """{(visibility, task): (passed, graded)} and {(visibility, test): (passed, graded)}; a
    student counts once per task (passed = every test of the task passed)."""
    per_task: dict[tuple, list[bool]] = {}
    per_test: dict[tuple, list[int]] = {}
    for r in results.values():
        mine: dict[tuple, list[bool]] = {}
        for t in r["tests"]:
            if t["name"].split(" · ")[0].partition(":")[0] != a.name:
                continue
            vis = "hidden" if t.get("visibility") == "after_published" else "public"
            ok = t["status"] == "passed"
            mine.setdefault((vis, task_of(a, t)), []).append(ok)
            counts = per_test.setdefault((vis, t["name"]), [0, 0])
            counts[0] += ok
            counts[1] += 1
        for key, oks in mine.items():
            per_task.setdefault(key, []).append(all(oks))
    return ({k: (sum(v), len(v)) for k, v in per_task.items()},
            {k: tuple(v) for k, v in per_test.items()})


def misconceptions(results: dict[str, dict]) -> Counter:
    """How many students each hint fired for (once per student, however many tests): the
    public tests' hints shown in results.json and the hidden tests' from the instructor-only
    record (report.instructor_json, under "instructor")."""
    students = Counter()
    for r in results.values():
        hints = {line[6:] for t in r["tests"] for line in t["output"].splitlines()
                 if line.startswith("Hint: ")}
        hidden = r.get("instructor", {}).get("hints", {})
        hints.update(h for hs in hidden.values() if isinstance(hs, list) for h in hs)
        students.update(hints)
    return students


def class_report(results: dict[str, dict], errors: dict[str, str],
                 submissions: dict[str, Path], assignments: list[Assignment]) -> str:
    from .bulk import rejection

    rejected = {s: "; ".join(rejection(r)) for s, r in results.items() if rejection(r)}
    rejected.update(errors)
    graded = {s: r for s, r in results.items() if s not in rejected}
    lines = ["# Class report", "",
             f"{len(submissions)} submissions: {len(graded)} graded, "
             f"{len(rejected)} rejected or errored", ""]
    for a in assignments:
        lines += [f"## {a.name}: scores", "", "```"]
        pct = []
        for r in results.values():
            mine = [t for t in r["tests"] if t["name"].split(" · ")[0].partition(":")[0] == a.name]
            top = sum(t["max_score"] for t in mine)
            pct.append(100 * sum(t["score"] for t in mine) / top if top else 0)
        lines += histogram(pct) + ["```", ""]
        tasks, tests = pass_rates(graded, a)
        lines += [f"## {a.name}: pass rate per task (hardest first)", "",
                  "| task | public | hidden |", "|---|---|---|"]
        for task in sorted({t for _, t in tasks},
                           key=lambda t: min(p / n for (v, x), (p, n) in tasks.items()
                                             if x == t)):
            cells = [f"{tasks[(v, task)][0]}/{tasks[(v, task)][1]}" if (v, task) in tasks
                     else "-" for v in ("public", "hidden")]
            lines.append(f"| {task} | {cells[0]} | {cells[1]} |")
        lines += ["", f"## {a.name}: pass rate per test", "",
                  "| test | visibility | passed |", "|---|---|---|"]
        for (vis, name), (p, n) in sorted(tests.items(), key=lambda kv: kv[1][0] / kv[1][1]):
            lines.append(f"| {name} | {vis} | {p}/{n} |")
        lines.append("")
    lines += ["## Most frequent misconceptions (students)", ""]
    lines += [f"- {n} student{'s' if n != 1 else ''}: {h}"
              for h, n in misconceptions(graded).most_common(10)] or ["- none"]
    lines += ["", "## Rejected or errored submissions", ""]
    lines += [f"- {s}: {why}" for s, why in sorted(rejected.items())] or ["- none"]
    lines += ["", "## Suspiciously similar submissions", ""]
    starter = assignments[0].starter / assignments[0].package if len(assignments) == 1 else None
    lines += [f"- {len(c.members)} submissions: {' ~ '.join(c.members)} (up to {c.similarity:.0%}"
              f" of code shingles shared beyond the starter; longest shared fragment "
              f"{c.shared_tokens} tokens)" for c in clusters(submissions, starter)] or ["- none"]
    return "\n".join(lines) + "\n"
