"""Bulk grading: every submission in a folder (one folder or zip per student), in parallel,
resumable; one results.json per student, grades.csv, and a class report.

A student whose OUT/<student>/results.json exists is skipped (resume after an interruption);
results are written atomically, so a half-written file never counts as done.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import os
import time
import zipfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from rich.console import Console
from rich.markdown import Markdown
from rich.progress import Progress

from . import service
from .report import write_results
from .sandbox import SandboxPolicy

SIMILARITY_THRESHOLD = 0.9
SHINGLE = 8


def student_name(path: Path) -> str:
    return path.stem if path.suffix == ".zip" else path.name


def list_submissions(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir()
                  if not p.name.startswith(".") and (p.is_dir() or p.suffix == ".zip"))


def grade_one(submission: Path, assignment: str | None, out: Path,
              policy: SandboxPolicy) -> dict:
    """Grade one student (quietly) and write OUT/<student>/results.json atomically."""
    target = out / student_name(submission)
    tmp = out / f".{student_name(submission)}.partial"
    results = service.grade(submission, [assignment] if assignment else None, policy)
    write_results(tmp, results.gradescope())
    target.mkdir(parents=True, exist_ok=True)
    os.replace(tmp / "results.json", target / "results.json")
    tmp.rmdir()
    return json.loads((target / "results.json").read_text())


def run_bulk(folder: Path, assignment: str | None, out: Path, jobs: int,
             policy: SandboxPolicy | None = None) -> dict[str, dict]:
    policy = policy or SandboxPolicy.create()
    console = Console()
    for line in service.prepare(policy):
        console.print(f"[yellow]{line}[/]")
    out.mkdir(parents=True, exist_ok=True)
    subs = list_submissions(folder)
    results: dict[str, dict] = {}
    todo = []
    for sub in subs:
        done = out / student_name(sub) / "results.json"
        if done.exists():
            results[student_name(sub)] = json.loads(done.read_text())
        else:
            todo.append(sub)
    if len(todo) < len(subs):
        console.print(f"resuming: {len(subs) - len(todo)} of {len(subs)} already graded")
    started = time.monotonic()
    with Progress(console=console, transient=False) as progress, \
            ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        task = progress.add_task("grading", total=len(todo))
        futures = {pool.submit(grade_one, s, assignment, out, policy): s for s in todo}
        for fut in as_completed(futures):
            sub = futures[fut]
            try:
                results[student_name(sub)] = fut.result()
            except Exception as e:  # noqa: BLE001 - one student's failure never stops the rest
                console.print(f"[red]{student_name(sub)}: grading failed: {e}[/]")
            progress.advance(task)
    write_gradebook(results, out)
    report = class_report(results, {student_name(s): s for s in subs})
    (out / "class_report.md").write_text(report)
    console.print(Markdown(report))
    console.print(f"graded {len(todo)} in {time.monotonic() - started:.1f} s; "
                  f"{out / 'grades.csv'}, {out / 'class_report.md'}")
    return results


def write_gradebook(results: dict[str, dict], out: Path) -> None:
    tests = sorted({t["name"] for r in results.values() for t in r["tests"]})
    with open(out / "grades.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student", "score", "max_score", *tests])
        for student in sorted(results):
            r = results[student]
            scores = {t["name"]: t["score"] for t in r["tests"]}
            writer.writerow([student, r["score"], r.get("max_score", ""),
                             *[scores.get(t, "") for t in tests]])


def class_report(results: dict[str, dict], submissions: dict[str, Path]) -> str:
    """Score histogram, per-test pass rates, most frequent misconceptions, similar pairs."""
    lines = ["# Class report", "", f"{len(results)} submissions", "", "## Scores", ""]
    bins = Counter()
    for r in results.values():
        pct = 100 * r["score"] / r["max_score"] if r.get("max_score") else 0
        bins[min(int(pct // 10), 9)] += 1
    for b in range(10):
        lines.append(f"{b * 10:3d}-{b * 10 + 9 if b < 9 else 100:3d}% | {'#' * bins[b]} {bins[b]}")
    lines += ["", "## Pass rate per test", ""]
    passed, seen, hints = Counter(), Counter(), Counter()
    for r in results.values():
        for t in r["tests"]:
            seen[t["name"]] += 1
            passed[t["name"]] += t["status"] == "passed"
            for line in t["output"].splitlines():
                if line.startswith("Hint: "):
                    hints[line[6:]] += 1
    for name in sorted(seen, key=lambda n: passed[n] / seen[n]):
        lines.append(f"- {name}: {passed[name]}/{seen[name]}")
    lines += ["", "## Most frequent misconceptions", ""]
    lines += [f"- {n} x {h}" for h, n in hints.most_common(10)] or ["- none"]
    lines += ["", "## Suspiciously similar submissions", ""]
    pairs = similar_pairs(submissions)
    lines += [f"- {a} ~ {b}: {s:.0%} of code shingles shared" for a, b, s in pairs] or ["- none"]
    return "\n".join(lines) + "\n"


def _code_shingles(path: Path) -> set[tuple[str, ...]]:
    """Token shingles of all .py files, identifiers and literals blinded (renaming does not hide
    a copy)."""
    import tokenize

    texts = []
    if path.is_dir():
        texts = [p.read_text(errors="replace") for p in sorted(path.rglob("*.py"))]
    elif zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            texts = [zf.read(i).decode(errors="replace") for i in zf.infolist()
                     if i.filename.endswith(".py") and i.file_size < 2**20]
    tokens: list[str] = []
    for text in texts:
        try:
            for tok in tokenize.generate_tokens(io.StringIO(text).readline):
                if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE,
                                tokenize.INDENT, tokenize.DEDENT):
                    continue
                tokens.append({tokenize.NAME: "N", tokenize.NUMBER: "0",
                               tokenize.STRING: "S"}.get(tok.type, tok.string)
                              if tok.string not in KEYWORDS else tok.string)
        except (tokenize.TokenError, SyntaxError, IndentationError):
            continue
    return {tuple(tokens[i:i + SHINGLE]) for i in range(len(tokens) - SHINGLE + 1)}


KEYWORDS = set(__import__("keyword").kwlist)


def similar_pairs(submissions: dict[str, Path]) -> list[tuple[str, str, float]]:
    shingles = {s: _code_shingles(p) for s, p in submissions.items()}
    pairs = []
    for a, b in itertools.combinations(sorted(shingles), 2):
        sa, sb = shingles[a], shingles[b]
        if len(sa) < 50 or len(sb) < 50:
            continue
        sim = len(sa & sb) / len(sa | sb)
        if sim >= SIMILARITY_THRESHOLD:
            pairs.append((a, b, sim))
    return sorted(pairs, key=lambda p: -p[2])
