"""Bulk-grading figures: similarity clustering of 500 generated submissions (datasketch
MinHashLSH) against exact all-pairs Jaccard, the method it replaced; `bulk --jobs 2` against
`--jobs 1` on 40 generated toy-course submissions, and the per-submission cost of `--jobs 1`
against a plain pytest run of the same tests on one submission (what bulk adds: intake,
sandbox, judging in the parent, storage, reports); `bulk --dask` on a loopback cluster (a
`dask scheduler`, 2 `dask worker --nthreads 1`) against a local `bulk --jobs 2` on the same
generated toy-course submissions."""

from __future__ import annotations

import io
import itertools
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

import benchrows
from rich.console import Console

from autograder.classroom.similarity import clusters, code_shingles

N = 500
DASK_SUBS = 10  # toy-course submissions graded by each of the two runs
JOBS_SUBS = 40  # toy-course submissions for the 1-vs-2-jobs figure
PYTEST_REPEATS = 3
TOY = Path(__file__).resolve().parent.parent / "tests" / "selftest" / "toy_course"


def _program(rng: random.Random, n: int = 20) -> str:
    def expr(depth: int) -> str:
        if depth == 0:
            return rng.choice(["x", "y", "1", "'s'", "x[0]", "len(y)"])
        form = rng.choice(["({} + {})", "({} * {})", "({} - {})", "[{}, {}]", "f({}, {})",
                           "({} if {} else 0)", "{{{}: {}}}", "({} % {})"])
        return form.format(*(expr(depth - 1) for _ in range(form.count("{}"))))

    return "\n".join(f"def f{i}(x, y):\n    return {expr(3)}\n" for i in range(n))


def _all_pairs(subs: dict[str, list[str]]) -> int:
    shingles = {s: code_shingles(texts) for s, texts in subs.items()}
    return sum(len(shingles[a] & shingles[b]) / len(shingles[a] | shingles[b]) >= 0.9
               for a, b in itertools.combinations(sorted(shingles), 2))


def _toy_class(tmp: Path, count: int = DASK_SUBS) -> tuple[Path, Path]:
    """A toy-course copy with fresh goldens, and `count` seeded submissions (the reference,
    or one of its mutants)."""
    from autograder.assignments import load
    from autograder.authoring.goldens import generate
    from autograder.markers import without_markers

    course = tmp / "course"
    shutil.copytree(TOY, course)
    generate(load("toy", course))
    solution = without_markers((TOY / "solutions" / "toy" / "__init__.py").read_text())
    variants = [solution, solution.replace("return a + b", "return a - b"),
                solution.replace("key=lambda i: xs[i])", "key=lambda i: -xs[i])")]
    rng = random.Random(0)
    for i in range(count):
        pkg = tmp / "subs" / f"s{i:02d}" / "toy"
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text(rng.choice(variants) + f"\n# student {i}\n")
    return course, tmp / "subs"


def _dask_row() -> dict:
    """Submissions per second: bulk --dask on 2 single-threaded workers vs bulk --jobs 2."""
    from autograder.classroom.bulk import run_bulk
    from autograder.classroom.dask_executor import loopback_cluster
    from autograder.settings import COURSE_ROOT

    what = f"bulk --dask (2 workers x 1 thread) vs --jobs 2, {DASK_SUBS} toy submissions"
    quiet = Console(file=io.StringIO())
    previous = os.environ.get(COURSE_ROOT.name)
    with tempfile.TemporaryDirectory() as tmp:
        course, subs = _toy_class(Path(tmp))
        os.environ[COURSE_ROOT.name] = str(course)  # this bench file runs in its own process
        try:
            started = time.perf_counter()
            run_bulk(subs, "toy", Path(tmp) / "local", 2, console=quiet)
            local = time.perf_counter() - started
            started = time.perf_counter()
            with loopback_cluster(Path(tmp) / "dask", workers=2) as address:
                up = time.perf_counter() - started
                started = time.perf_counter()
                run_bulk(subs, "toy", Path(tmp) / "remote", 2, console=quiet, dask=address)
                remote = time.perf_counter() - started
        finally:
            if previous is None:
                os.environ.pop(COURSE_ROOT.name, None)
            else:
                os.environ[COURSE_ROOT.name] = previous
        same = ((Path(tmp) / "local" / "grades.csv").read_bytes()
                == (Path(tmp) / "remote" / "grades.csv").read_bytes())
    return {"group": "bulk", "what": what, "ours": DASK_SUBS / remote, "peer": DASK_SUBS / local,
            "peer_name": "local bulk --jobs 2", "unit": "subs/s", "ratio": local / remote,
            "note": f"higher is better; cluster start-up ({up:.1f} s) not counted; grades.csv "
                    + ("equal" if same else "DIFFERS")}


def _jobs_rows() -> list[dict]:
    """bulk --jobs 2 vs --jobs 1 on JOBS_SUBS toy submissions; --jobs 1's seconds per
    submission vs a plain pytest run (local mode) of the same tests on the reference."""
    import statistics
    import subprocess
    import sys

    from autograder.classroom.bulk import run_bulk
    from autograder.settings import COURSE_ROOT

    quiet = Console(file=io.StringIO())
    previous = os.environ.get(COURSE_ROOT.name)
    with tempfile.TemporaryDirectory() as tmp:
        course, subs = _toy_class(Path(tmp), JOBS_SUBS)
        os.environ[COURSE_ROOT.name] = str(course)  # this bench file runs in its own process
        try:
            seconds = {}
            for jobs in (1, 2):
                started = time.perf_counter()
                run_bulk(subs, "toy", Path(tmp) / f"jobs{jobs}", jobs, console=quiet)
                seconds[jobs] = time.perf_counter() - started
            plain = []
            for _ in range(PYTEST_REPEATS):
                started = time.perf_counter()
                subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                "-p", "autograder.grading.local_pytest", "tests/toy/public", "tests/toy/hidden",
                                "--impl", "solutions"],
                               cwd=course, capture_output=True, check=True, timeout=300)
                plain.append(time.perf_counter() - started)
        finally:
            if previous is None:
                os.environ.pop(COURSE_ROOT.name, None)
            else:
                os.environ[COURSE_ROOT.name] = previous
    per_sub, bare = seconds[1] / JOBS_SUBS, statistics.median(plain)
    return [
        {"group": "bulk", "what": f"bulk --jobs 2 vs --jobs 1, {JOBS_SUBS} toy submissions",
         "ours": JOBS_SUBS / seconds[2], "peer": JOBS_SUBS / seconds[1],
         "peer_name": "bulk --jobs 1", "unit": "subs/s", "ratio": seconds[1] / seconds[2],
         "note": "higher is better; 2 cores"},
        {"group": "bulk", "what": "seconds per submission, bulk --jobs 1 (toy course)",
         "ours": per_sub, "peer": bare,
         "peer_name": "plain pytest of the same tests (local mode), one submission",
         "unit": "s", "ratio": per_sub / bare,
         "note": f"lower is better; difference {per_sub - bare:+.2f} s (ours: intake, sandbox, "
                 "judging, storage, reports; the peer: one pytest start per submission)"},
    ]


def rows() -> list[dict]:
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        subs = {}
        for i in range(N):
            d = Path(tmp) / f"s{i}"
            d.mkdir()
            (d / "m.py").write_text(_program(rng))
            subs[d.name] = [(d / "m.py").read_text()]  # similarity compares sources
        started = time.perf_counter()
        clusters(subs)
        ours = time.perf_counter() - started
        started = time.perf_counter()
        _all_pairs(subs)
        peer = time.perf_counter() - started
    return [
        {"group": "bulk", "what": f"similarity clusters, {N} generated submissions",
         "ours": ours, "peer": peer, "peer_name": "exact all-pairs Jaccard", "unit": "s",
         "ratio": ours / peer, "note": "lower is better"},
        *_measured_rows(_jobs_rows, "bulk --jobs 2 vs --jobs 1"),
        _measured(_dask_row, "bulk --dask vs --jobs 2"),
    ]


def _measured(measure, what: str) -> dict:
    """measure()'s row, or a row saying why it failed (the file's other rows still count)."""
    try:
        return measure()
    except Exception as exc:
        return benchrows.failed("bulk", what, exc)


def _measured_rows(measure, what: str) -> list[dict]:
    try:
        return measure()
    except Exception as exc:
        return [benchrows.failed("bulk", what, exc)]


if __name__ == "__main__":
    for row in rows():
        print(row)
