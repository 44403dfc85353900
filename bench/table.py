"""The performance table: rows (see benchrows.py) to Markdown, and bench/results.md's page
around it."""

from __future__ import annotations

import math
import os
import platform
from pathlib import Path


def machine() -> str:
    """One line naming this machine: CPU model, logical cores, memory, OS, Python."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        mem = f", {pages * size / 2**30:.0f} GiB RAM"
    except (ValueError, OSError, AttributeError):
        pass
    return (f"{cpu}, {os.cpu_count()} logical cores{mem}, {platform.system()} "
            f"{platform.release()}, Python {platform.python_version()}")


def number(x: float | None) -> str:
    """A figure with 3 significant digits (no exponent between 1e-3 and 1e6); '—' for None."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e6:
        digits = max(0, 2 - math.floor(math.log10(abs(x))))
        return f"{x:,.{digits}f}"
    return f"{x:.2e}"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(rows: list[dict], date: str, machine_line: str, duration_s: float | None = None) -> str:
    """The table, with a line above it saying when, where and (optionally) how long."""
    took = f", `make bench` took {duration_s / 60:.1f} min" if duration_s is not None else ""
    lines = [f"Measured {date} on {machine_line}{took}. Every peer ran in the same run on the same "
             "data; ratio = ours / peer (the note says which way is better). No figure here is a "
             "pass/fail threshold.", "",
             "| group | what | ours | peer | ratio | unit | note |",
             "|---|---|---:|---:|---:|---|---|"]
    for r in rows:
        peer = "—" if r.get("peer") is None else f"{number(r['peer'])} ({_cell(r.get('peer_name'))})"
        if r.get("peer") is None and r.get("peer_name"):
            peer = f"— ({_cell(r['peer_name'])})"
        ratio = "—" if r.get("ratio") is None else f"{number(r['ratio'])}×"
        lines.append(f"| {_cell(r.get('group', ''))} | {_cell(r.get('what', ''))} | "
                     f"{number(r.get('ours'))} | {peer} | {ratio} | {_cell(r.get('unit', ''))} | "
                     f"{_cell(r.get('note', ''))} |")
    return "\n".join(lines) + "\n"


def page(results: dict) -> str:
    """bench/results.md: a heading, what regenerates it, and the table of `results`
    (run_all.run's dict: rows, date, machine, duration_s)."""
    return ("# Performance measurements\n\n"
            "Written by `make bench` (`bench/run_all.py`) with `bench/results.json`, the same rows "
            "as data; each row is one `bench/bench_*.py` measurement. `docs/PERFORMANCE.md` says "
            "what the engine does and which row measures it.\n\n"
            + markdown(results["rows"], results["date"], results["machine"],
                       results.get("duration_s")))
