"""The class report as one self-contained HTML page: the Markdown report rendered to HTML
(markdown-it-py, CommonMark + tables, raw HTML off: student-supplied names and messages are
escaped, never markup), with matplotlib plots embedded as data: PNGs (score histogram and pass
rate per task for each assignment). No URL to any network resource, and a
Content-Security-Policy that forbids them."""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path

from .assignments import Assignment
from .class_report import pass_rates

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def plots(results: dict[str, dict], a: Assignment) -> list[tuple[str, str]]:
    """(caption, data URL) of the assignment's score histogram and pass rate per task."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    pct = []
    for r in results.values():
        mine = [t for t in r["tests"] if t["name"].split(" · ")[0].partition(":")[0] == a.name]
        top = sum(t["max_score"] for t in mine)
        pct.append(100 * sum(t["score"] for t in mine) / top if top else 0)
    fig = Figure(figsize=(5, 2.5))
    ax = fig.subplots()
    ax.hist(pct, bins=10, range=(0, 100))
    ax.set_xlabel("score (%)")
    ax.set_ylabel("students")
    shown = [(f"{a.name}: score histogram", _png(fig))]
    tasks, _ = pass_rates(results, a)
    fig = Figure(figsize=(5, 2.5))
    ax = fig.subplots()
    labels = [f"{t} ({v})" for v, t in sorted(tasks)]
    ax.barh(labels, [tasks[k][0] / tasks[k][1] for k in sorted(tasks)])
    ax.set_xlabel("pass rate (students graded)")
    shown.append((f"{a.name}: pass rate per task", _png(fig)))
    return shown


def markdown_to_html(markdown: str) -> str:
    """CommonMark with GitHub-style tables; raw HTML in the text is escaped, links to other
    pages are not made (the page must stay offline)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table") \
        .disable(["link", "image", "autolink"]).render(markdown)


def html_report(markdown: str, results: dict[str, dict], assignments: list[Assignment]) -> str:
    """The page: plots first, then the Markdown report as HTML (tables as tables)."""
    figures = "".join(f'<figure><img alt="{html.escape(c)}" src="{src}"><figcaption>'
                      f"{html.escape(c)}</figcaption></figure>"
                      for a in assignments for c, src in plots(results, a))
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            "<title>Class report</title><style>body{font-family:sans-serif;margin:2em}"
            "pre{background:#f4f4f4;padding:1em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:.2em .5em}</style></head><body>"
            f"{figures}{markdown_to_html(markdown)}</body></html>\n")


def write_html(path: Path, markdown: str, results: dict[str, dict],
               assignments: list[Assignment]) -> None:
    from .atomic import write_atomic

    write_atomic(path, html_report(markdown, results, assignments).encode())
