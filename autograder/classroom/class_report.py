"""The class report as data (`ClassReport`: sections of Markdown text, tables and figures),
rendered to Markdown here and to HTML by html_report.py, so the page's charts and tables show
the same numbers. Per assignment: the score histogram (every student with results), the pass
rate per task and per test (public and hidden apart; denominator = the students graded, i.e.
not rejected); then the misconceptions counted once per student, the rejected submissions (the
one-line reason: intake's refusal, or the package's failed import), the suspiciously similar
ones (every starter subtracted). The per-student table comes first, after the counts.

Every name and message is shown with safe_text.one_line and, in Markdown, backslash-escaped
(`md_escape`): `__init__.py` stays `__init__.py`, a `|` cannot split a table cell."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ..assignments import VISIBILITIES, Assignment
from ..grading.results import GradedRun
from ..grading.safe_text import one_line
from ..grading.tasks import natural_key
from .gradebook import task_column_titles
from .similarity import MIN_SHINGLES, Scan

BINS = 10
STUDENT_PAGE = "report.html"  # each student's page, OUT/<student>/report.html (html_report)
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&#!{}$])")


def md_escape(text: object) -> str:
    """`text` as literal Markdown (CommonMark + GFM tables): visible, one line, every character
    that could start emphasis, code, a link, an entity, a table cell or a block backslashed."""
    escaped = _MD_SPECIAL.sub(r"\\\1", one_line(str(text)))
    if escaped[:1] in ("-", "+", "=", ">"):
        escaped = "\\" + escaped
    return re.sub(r"^(\d+)([.)])", r"\1\\\2", escaped)


@dataclass
class Table:
    """Headers as (short label, full title shown on hover or ""), rows of plain text cells;
    `links`: per row, a relative path the HTML page links the row's first cell to (or None)."""

    headers: list[tuple[str, str]]
    rows: list[list[str]]
    links: list[str | None] = field(default_factory=list)


@dataclass
class Figure:
    """A chart's data: `histogram` (values: percents) or `rates` (values: (label, passed,
    graded)); html_report draws it."""

    kind: str
    caption: str
    values: list


@dataclass
class Section:
    title: str
    blocks: list = field(default_factory=list)  # Markdown text (escaped), Table or Figure


@dataclass
class ClassReport:
    sections: list[Section]

    def markdown(self, skip: tuple[str, ...] = ()) -> str:
        """The report as Markdown (figures left out: their numbers are in the tables)."""
        lines = []
        for i, section in enumerate(self.sections):
            if section.title in skip:
                continue
            lines += [("# " if i == 0 else "## ") + md_escape(section.title), ""]
            for block in section.blocks:
                if isinstance(block, Table):
                    lines += table_markdown(block) + [""]
                elif isinstance(block, str):
                    lines += [block, ""]
        return "\n".join(lines).rstrip("\n") + "\n"


def table_markdown(table: Table) -> list[str]:
    return ["| " + " | ".join(md_escape(h) for h, _ in table.headers) + " |",
            "|" + "---|" * len(table.headers),
            *["| " + " | ".join(md_escape(c) for c in row) + " |" for row in table.rows]]


def histogram(percents: list[float]) -> list[str]:
    bins = Counter(min(int(p // (100 / BINS)), BINS - 1) for p in percents)
    width = 100 // BINS
    return [f"{b * width:3d}-{b * width + width - 1 if b < BINS - 1 else 100:3d}% | "
            f"{'#' * bins[b]} {bins[b]}" for b in range(BINS)]


def percent(r: GradedRun, a: Assignment) -> float:
    tests = r.of(a.name)
    top = sum(t.max_score for t in tests)
    return 100 * sum(t.score for t in tests) / top if top else 0.0


def pass_rates(results: dict[str, GradedRun], a: Assignment) -> tuple[dict, dict]:
    """{(visibility, task): (passed, graded)} and {(visibility, test id, task): (passed,
    graded)}; a student counts once per task (passed = every test of the task passed)."""
    per_task: dict[tuple, list[bool]] = {}
    per_test: dict[tuple, list[int]] = {}
    for r in results.values():
        own: dict[tuple, list[bool]] = {}
        for t in r.of(a.name):
            ok = t.passed
            own.setdefault((t.visibility, t.task_label), []).append(ok)
            counts = per_test.setdefault((t.visibility, t.test_id, t.task_label), [0, 0])
            counts[0] += ok
            counts[1] += 1
        for key, oks in own.items():
            per_task.setdefault(key, []).append(all(oks))
    return ({k: (sum(v), len(v)) for k, v in per_task.items()},
            {k: tuple(v) for k, v in per_test.items()})


def misconceptions(results: dict[str, GradedRun]) -> Counter:
    """How many students each hint fired for (once per student, however many tests): the
    public tests' hints of results.json and the hidden tests' from the instructor-only
    record (GradedRun.misconceptions)."""
    students = Counter()
    for r in results.values():
        students.update(r.misconceptions())
    return students


def _assignment_sections(a: Assignment, results: dict[str, GradedRun],
                         graded: dict[str, GradedRun]) -> list[Section]:
    titles = task_column_titles(a)
    pct = [percent(r, a) for r in results.values()]
    scores = Section(f"{a.name}: scores ({len(pct)} students)", [
        Figure("histogram", f"{a.name}: score histogram", pct),
        "```\n" + "\n".join(histogram(pct)) + "\n```"])
    tasks, tests = pass_rates(graded, a)
    order = sorted({t for _, t in tasks}, key=natural_key)
    rates = Section(f"{a.name}: pass rate per task ({len(graded)} students graded)")
    rates.blocks.append(Figure("rates", f"{a.name}: pass rate per task",
                               [(f"{task} ({vis})", *tasks[(vis, task)]) for task in order
                                for vis in VISIBILITIES if (vis, task) in tasks]))
    rates.blocks.append(Table(
        [("task", ""), ("title", ""), *((str(v), "") for v in VISIBILITIES)],
        [[task, titles.get(task, ""), *[f"{tasks[(v, task)][0]}/{tasks[(v, task)][1]}"
                                        if (v, task) in tasks else "-" for v in VISIBILITIES]]
         for task in order]))
    per_test = Section(f"{a.name}: pass rate per test (hardest first)", [Table(
        [("test", ""), ("task", ""), ("visibility", ""), ("passed", "")],
        [[test_id, task, vis, f"{p}/{n}"] for (vis, test_id, task), (p, n)
         in sorted(tests.items(), key=lambda kv: (kv[1][0] / kv[1][1], natural_key(kv[0][2]),
                                                  kv[0][1]))])])
    return [scores, rates, per_test]


def student_table(results: dict[str, GradedRun], students: list[str], rejected: dict[str, str],
                  similar: dict[str, str], assignments: list[Assignment]) -> Table:
    """One row per student: total, score per assignment and per task, rejection, similarity;
    a student with a results.json links to their page (<student>/report.html, beside the
    report: html_report.student_page)."""
    headers: list[tuple[str, str]] = [("student", ""), ("score", "")]
    cells = []
    for a in assignments:
        titles = task_column_titles(a)
        tasks = sorted({t.task_label for r in results.values() for t in r.of(a.name)},
                       key=natural_key)
        headers.append((a.name, a.title))
        cells.append((a, None))
        for task in tasks:
            headers.append((f"{a.name} {task}", f"{task}: {titles[task]}" if task in titles else ""))
            cells.append((a, task))
    headers += [("rejected or errored", ""), ("similar to", "")]
    rows = []
    for s in students:
        r = results.get(s)
        row = [s, f"{r.score:g}/{r.max_score:g}" if r else "-"]
        for a, task in cells:
            picked = [t for t in r.of(a.name) if task is None or t.task_label == task] if r else []
            row.append(f"{sum(t.score for t in picked):g}/{sum(t.max_score for t in picked):g}"
                       if picked else "-")
        rows.append(row + [rejected.get(s, ""), similar.get(s, "")])
    links = [f"{s}/{STUDENT_PAGE}" if s in results else None for s in students]
    return Table(headers, rows, links)


def class_report(results: dict[str, GradedRun], errors: dict[str, str], students: list[str],
                 assignments: list[Assignment], scan: Scan,
                 names: list[tuple[str, str]] = ()) -> ClassReport:
    """The report over `students` (every entry of the class folder; `results` for those with a
    results.json, read once as results.GradedRun; `errors` for those whose grading failed);
    `names`: (student, note) on names that look alike or hide characters, look-alikes
    together (student_names)."""
    rejected = {s: "; ".join(r.rejection()) for s, r in results.items() if r.rejection()}
    rejected.update(errors)
    graded = {s: r for s, r in results.items() if s not in rejected}
    sections = [Section("Class report", [
        f"{len(students)} submissions: {len(graded)} graded, {len(rejected)} rejected or errored"])]
    students_at = len(sections)  # the student table comes right after the counts
    for a in assignments:
        sections += _assignment_sections(a, results, graded)
    hints = misconceptions(graded).most_common(10)
    sections.append(Section("Most frequent misconceptions (students)", ["\n".join(
        [f"- {n} student{'s' if n != 1 else ''}: {md_escape(h)}" for h, n in hints] or ["- none"])]))
    sections.append(Section("Rejected or errored submissions", ["\n".join(
        [f"- {md_escape(s)}: {md_escape(why)}" for s, why in sorted(rejected.items())] or ["- none"])]))
    decisions = [f"- {md_escape(s)}: {md_escape(note)}" for s, r in sorted(results.items())
                 for note in r.notes]
    sections.append(Section("Intake decisions (files left out, copies not graded)",
                            ["\n".join(decisions or ["- none"])]))
    lines = [f"- {len(c.members)} submissions: {' ~ '.join(md_escape(m) for m in c.members)} "
             f"(up to {c.similarity:.0%} of code shingles shared beyond the starters; longest "
             f"shared fragment {c.shared_tokens} tokens)" for c in scan.clusters] or ["- none"]
    lines += [f"- not compared: {md_escape(s)} ({md_escape(why)})" for s, why in sorted(scan.skipped.items())]
    if scan.too_small:
        lines.append(f"- too small to compare (under {MIN_SHINGLES} code fragments beyond the "
                     f"starters; byte-identical copies are still flagged): " + ", ".join(
                         f"{md_escape(s)} ({n})" for s, n in sorted(scan.too_small.items())))
    lines += [f"- {md_escape(s)}: {md_escape(note)}" for s, note in sorted(scan.notes.items())]
    sections.append(Section("Suspiciously similar submissions", ["\n".join(lines)]))
    sections.append(Section("Student names flagged (each graded on its own files)", ["\n".join(
        [f"- {md_escape(s)}: {md_escape(note)}" for s, note in names] or ["- none"])]))
    similar = {}
    for c in scan.clusters:
        for m in c.members:
            similar[m] = ", ".join(o for o in c.members if o != m) + f" ({c.similarity:.0%})"
    sections.insert(students_at, Section("Students", [
        student_table(results, students, rejected, similar, assignments)]))
    return ClassReport(sections)
