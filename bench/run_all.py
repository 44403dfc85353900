"""`make bench`: run every bench/bench_*.py's rows() in one run, on one machine, and write
bench/results.json (the rows, the date and the machine) and bench/results.md (the same as a
table): the measured figures, with their date and machine, that README.md and
docs/PERFORMANCE.md point to.

    python bench/run_all.py                 # everything (40-70 min), writes the two files
    python bench/run_all.py --only bpe ddp  # just these files (bench_bpe.py, bench_ddp.py);
                                            # prints the table, writes nothing

Each bench file runs in its own child process (fresh imports, its own thread settings, a wall
timeout), one after the other so no two measurements share the CPUs. A file whose rows() raises,
returns malformed rows, crashes or times out contributes a row saying so; the bench goes on.
New bench files are picked up by name, with no edit here.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import benchrows  # noqa: E402
import table  # noqa: E402

TIMEOUT_S = float(os.environ.get("BENCH_TIMEOUT", "3600"))  # wall seconds per bench file


def bench_files(only: list[str] | None = None) -> list[Path]:
    """bench/bench_*.py, sorted by name; `only` keeps those whose <name> is listed."""
    files = sorted(HERE.glob("bench_*.py"))
    if only:
        files = [f for f in files if f.stem.removeprefix("bench_") in only]
    return files


def rows_in_this_process(path: Path) -> list[dict]:
    """Import the bench file and call rows(); every failure becomes a row (never raises)."""
    group = path.stem.removeprefix("bench_")
    try:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module  # importable by name (multiprocessing pickles by name)
        spec.loader.exec_module(module)
        rows = list(module.rows())
    except Exception as exc:
        return [benchrows.failed(group, f"rows() of {path.name}", exc)]
    checked = []
    for i, r in enumerate(rows):
        bad = benchrows.problems(r)
        if not bad:
            r = benchrows.finite_or_none(r)
        checked.append(r if not bad else benchrows.not_measured(
            group, f"row {i} of {path.name}", f"malformed row ({'; '.join(bad)})"))
    return checked


def rows_in_child(path: Path, timeout_s: float = TIMEOUT_S) -> tuple[list[dict], float]:
    """rows() of one bench file in a fresh child process, and its wall seconds."""
    group = path.stem.removeprefix("bench_")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rows.json"
        cmd = [sys.executable, str(HERE / "run_all.py"), "--child", str(path), str(out)]
        try:
            proc = subprocess.run(cmd, cwd=ROOT, timeout=timeout_s, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
        except subprocess.TimeoutExpired:
            return ([benchrows.not_measured(group, f"rows() of {path.name}",
                                            f"timed out after {timeout_s:.0f} s")],
                    time.perf_counter() - start)
        wall = time.perf_counter() - start
        if proc.returncode != 0 or not out.exists():
            last = (proc.stdout or "").strip().splitlines()[-1:] or [""]
            return ([benchrows.not_measured(
                group, f"rows() of {path.name}",
                f"child exited with {proc.returncode} ({last[0][:200]})")], wall)
        return json.loads(out.read_text()), wall


def run(files: list[Path]) -> dict:
    """Every file's rows, in order, with the date, the machine and the wall time of each file."""
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = f"load average {os.getloadavg()[0]:.1f} at the start, " if hasattr(os, "getloadavg") else ""
    start = time.perf_counter()
    rows, seconds = [], {}
    for path in files:
        print(f"== {path.name}", flush=True)
        file_rows, wall = rows_in_child(path)
        seconds[path.name] = round(wall, 1)
        benchrows.print_rows(file_rows)
        print(f"   ({wall:.0f} s)", flush=True)
        rows += file_rows
    machine = table.machine() + (f" ({load}{os.getloadavg()[0]:.1f} at the end)" if load else "")
    return {"date": date, "machine": machine, "python": sys.version.split()[0],
            "duration_s": round(time.perf_counter() - start, 1), "seconds_per_file": seconds,
            "rows": rows}


def write(results: dict, bench_dir: Path = HERE) -> str:
    """results.json and results.md (table.page) into bench_dir; returns results.md's text."""
    page = table.page(results)
    (bench_dir / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    (bench_dir / "results.md").write_text(page)
    return page


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", metavar="NAME", help="only bench_<NAME>.py; writes nothing")
    ap.add_argument("--child", nargs=2, metavar=("FILE", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        path, out = Path(args.child[0]), Path(args.child[1])
        sys.path.insert(0, str(path.parent))
        out.write_text(json.dumps(rows_in_this_process(path)))
        return 0
    results = run(bench_files(args.only))
    if args.only:
        print(table.markdown(results["rows"], results["date"], results["machine"]))
        return 0
    write(results)
    print(f"wrote bench/results.json and bench/results.md "
          f"({len(results['rows'])} rows, {results['duration_s'] / 60:.1f} min)")
    regenerate_handouts()
    return 0


def regenerate_handouts() -> None:
    """Handout blocks quote bench/results.json (`bench-...` blocks): rewrite them from the new run."""
    for script in sorted((ROOT / "assignments").glob("*/make_tables.py")):
        subprocess.run([sys.executable, str(script)], cwd=ROOT, check=True, timeout=600)


if __name__ == "__main__":
    sys.exit(main())
