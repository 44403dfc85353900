"""The class report (class_report.ClassReport) as one self-contained HTML page: each section
under its own heading with its chart (matplotlib, an embedded data: PNG whose alt text lists the
plotted numbers) and its tables; text blocks rendered from Markdown with markdown-it-py
(CommonMark, raw HTML off); tables built here with every cell inert and HTML-escaped, short
headers carrying the full title on hover, and each student linked to their own page beside the
report (a relative link). No URL to any network resource, and a Content-Security-Policy that
forbids them.

A student's page (`student_page`, OUT/<student>/report.html): their score, why nothing was
graded where that is so (results.GradedRun.rejection, package_problems: machine fields), the
summary and every test's message as results.json shows them to the student, the hints of the
hidden tests (instructor.json: the instructor's eyes only), and links to the class report and
the raw results.json."""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from urllib.parse import quote

from ..grading.results import GradedRun
from ..grading.safe_text import one_line
from .class_report import STUDENT_PAGE, ClassReport, Figure, Table

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
STYLE = ("body{font-family:sans-serif;margin:2em}pre{background:#f4f4f4;padding:1em;"
         "white-space:pre-wrap;margin:0}"
         "table{border-collapse:collapse;margin-bottom:1em}td,th{border:1px solid #ccc;"
         "padding:.2em .5em}th[title]{text-decoration:underline dotted;cursor:help}")


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def figure_alt(figure: Figure) -> str:
    """What the chart shows, in words (the page's alt text; tests compare it with the tables)."""
    if figure.kind == "rates":
        return f"{figure.caption}: " + ", ".join(f"{label} {p}/{n}" for label, p, n in figure.values)
    return f"{figure.caption}: {len(figure.values)} students"


def draw(figure: Figure) -> str:
    """The chart as a data: URL."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure as Canvas

    if figure.kind == "histogram":
        fig = Canvas(figsize=(5, 2.5))
        ax = fig.subplots()
        ax.hist(figure.values, bins=10, range=(0, 100))
        ax.set_xlabel("score (%)")
        ax.set_ylabel("students")
        return _png(fig)
    fig = Canvas(figsize=(5, 0.6 + 0.35 * max(1, len(figure.values))))
    ax = fig.subplots()
    labels = [label for label, _, _ in figure.values][::-1]
    rates = [p / n if n else 0 for _, p, n in figure.values][::-1]
    bars = ax.barh(labels, rates)
    ax.bar_label(bars, [f"{p}/{n}" for _, p, n in figure.values][::-1], padding=3)
    ax.set_xlim(0, 1.15)
    ax.set_xlabel("pass rate (students graded)")
    return _png(fig)


def markdown_to_html(markdown: str) -> str:
    """CommonMark with GitHub-style tables; raw HTML in the text is escaped, links to other
    pages are not made (the page must stay offline)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table") \
        .disable(["link", "image", "autolink"]).render(markdown)


def _h(text: object) -> str:
    """Text for an HTML element or attribute: inert (safe_text.one_line), then escaped."""
    return html.escape(one_line(str(text)))


def table_html(table: Table) -> str:
    def th(short: str, full: str) -> str:
        title = f' title="{_h(full)}"' if full and full != short else ""
        return f"<th{title}>{_h(short)}</th>"

    def cells(row: list[str], link: str | None) -> str:
        shown = [_h(c) for c in row]
        if link and shown:  # a relative link to a file beside the page (URL-quoted)
            shown[0] = f'<a href="{html.escape(quote(link))}">{shown[0]}</a>'
        return "".join(f"<td>{c}</td>" for c in shown)

    head = "".join(th(s, f) for s, f in table.headers)
    links = table.links or [None] * len(table.rows)
    body = "".join(f"<tr>{cells(row, link)}</tr>" for row, link in zip(table.rows, links))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def html_report(report: ClassReport) -> str:
    parts = []
    for i, section in enumerate(report.sections):
        tag = "h1" if i == 0 else "h2"
        parts.append(f"<section><{tag}>{_h(section.title)}</{tag}>")
        for block in section.blocks:
            if isinstance(block, Figure):
                parts.append(f'<figure><img alt="{_h(figure_alt(block))}" '
                             f'src="{draw(block)}"><figcaption>{_h(block.caption)}'
                             f"</figcaption></figure>")
            elif isinstance(block, Table):
                parts.append(table_html(block))
            else:
                parts.append(markdown_to_html(block))
        parts.append("</section>")
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f"<title>Class report</title><style>{STYLE}</style></head><body>"
            + "".join(parts) + "</body></html>\n")


def write_html(path: Path, report: ClassReport) -> None:
    from ..atomic import write_atomic

    write_atomic(path, html_report(report).encode("utf-8"))



def student_page(student: str, results: dict, run: GradedRun) -> str:
    """One student's graded run as a page (see the module doc): `results` is results.json as
    written (its display text is shown, never read for meaning), `run` the same read once."""
    reasons = run.rejection() or run.package_problems()
    parts = [f"<h1>{_h(student)}: {run.score:g} / {run.max_score:g}</h1>",
             '<p><a href="../class_report.html">class report</a> · '
             '<a href="results.json">results.json</a></p>']
    if reasons:
        items = "".join(f"<li>{_h(r)}</li>" for r in reasons)
        parts.append(f"<h2>Why this submission scored nothing</h2><ul>{items}</ul>")
    if str(results.get("output", "")).strip():
        parts.append(f"<h2>Summary (as the student sees it)</h2><pre>{_h(results['output'])}</pre>")
    shown = results.get("tests") if isinstance(results.get("tests"), list) else []
    for assignment in dict.fromkeys(t.assignment for t in run.tests):
        rows = "".join(
            f"<tr><td>{_h(t.task_label)}</td><td>{_h(t.test_id)}</td><td>{_h(t.visibility)}</td>"
            f"<td>{t.score:g}/{t.max_score:g}</td><td>{'passed' if t.passed else 'failed'}</td>"
            f"<td><pre>{_h(shown[k].get('output', '') if k < len(shown) else '')}</pre></td></tr>"
            for k, t in enumerate(run.tests) if t.assignment == assignment)
        parts.append(f"<h2>{_h(assignment)}</h2><table><thead><tr><th>task</th><th>test</th>"
                     f"<th>visibility</th><th>score</th><th>status</th><th>message</th></tr>"
                     f"</thead><tbody>{rows}</tbody></table>")
    hidden = [(name, hint) for name, hints in run.instructor_hints.items() for hint in hints]
    if hidden:
        items = "".join(f"<li>{_h(name)}: {_h(hint)}</li>" for name, hint in hidden)
        parts.append(f"<h2>Misconceptions named, hidden tests included (instructor only)</h2><ul>{items}</ul>")
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f"<title>{_h(student)}</title><style>{STYLE}</style></head><body>"
            + "".join(parts) + "</body></html>\n")


def write_student_page(folder: Path, student: str, results: dict, run: GradedRun) -> None:
    from ..atomic import write_atomic

    write_atomic(folder / STUDENT_PAGE, student_page(student, results, run).encode("utf-8"))
