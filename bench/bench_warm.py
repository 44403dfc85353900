"""The warm path beside the cold chain (backends/warmbox.py; SPEC §3, "Warm children enter a
sandbox"), same machine, same run:

- `check minigrad`, `check fusion` and `grade` of one fusion submission (the reference), each
  a fresh grader process: warm (`TRAINING_SYSTEMS_WARM=1`: the zygote starts in that process,
  its imports are on the wall-clock path; a lone child, `check`'s, starts cold unless a zygote
  is up, so the check rows compare the switch, not two paths) vs cold
  (`TRAINING_SYSTEMS_WARM=0`);
- a graded fusion submission in a grader process whose zygote is already up (what `bulk`,
  `selftest`, `demo` and `check --watch` pay per submission after the first) vs cold in the
  same process;
- `demo` (the four example zips, every assignment) after setup, once each way;
- a fresh `git clone` of this checkout, `make demo` (setup with this machine's package caches,
  then the demo) until the demo's table shows, once each way (a clone each);
- `check --watch` (autograder/watch.py) on the reference of minigrad and fusion: seconds from
  a save to the redrawn report, once the watcher is settled (its third save on), warm vs cold;
- `bulk --jobs 2` on a class of CLASS_SIZE copies of the reference (env BENCH_CLASS, default
  48) of fusion, minigrad and ddp: CPU seconds per student, the machine's CPU time during the
  run (/proc/stat: everything the grader started, wherever it was reaped; run on a quiet
  machine), warm vs cold;
- ddp's battery (tests/ddp/common.py) on the reference, public and hidden: CPU seconds of the
  process and the ranks it forked (rusage), its sections in turn (one process per rank) vs
  apart (one per rank and section, what a section that goes wrong falls back to).

Figures are medians of REPEATS wall times (env BENCH_REPEATS, default 3).

    python bench/bench_warm.py
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchrows import command_seconds, guarded, not_measured, print_rows, row  # noqa: E402

from autograder import settings  # noqa: E402
from autograder.backends import warmbox  # noqa: E402
from autograder.sandbox import SandboxPolicy  # noqa: E402

PY = sys.executable
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
CLASS_SIZE = int(os.environ.get("BENCH_CLASS", "48"))


def wall(cmd: list[str], warm: bool, repeats: int = REPEATS) -> float:
    """Median wall seconds of `repeats` runs of cmd with the warm path on or off; raises when
    the command fails."""
    return command_seconds(cmd, ROOT, repeats, {**os.environ, settings.WARM.name: "1" if warm else "0"})


def command_row(what: str, cmd: list[str]) -> dict:
    warm, cold = wall(cmd, True), wall(cmd, False)
    return row("warm", what, warm, "s", peer=cold, peer_name="cold chain (TRAINING_SYSTEMS_WARM=0)",
               note=f"fresh grader process each, median of {REPEATS}; lower is better")


def in_process_row() -> dict:
    """A fusion grade with the zygote up vs cold, in this process."""
    from autograder.assignments import load
    from autograder.grading import pipeline
    from autograder.grading.job import GradeJob

    fusion = load("fusion")

    def grade_submission_root(assignment, root):
        return pipeline.grade(GradeJob(root, assignment.root, "grade",
                                       (assignment.name,))).grades[0]

    def grade(warm: bool) -> float:
        os.environ[settings.WARM.name] = "1" if warm else "0"
        t = time.perf_counter()
        result = grade_submission_root(fusion, fusion.solutions)
        took = time.perf_counter() - t
        if result.run is None or result.run.path != ("warm" if warm else "cold"):
            raise RuntimeError(f"the {'warm' if warm else 'cold'} path did not run")
        return took

    os.environ[settings.WARM.name] = "1"
    grade_submission_root(fusion, fusion.solutions)  # the zygote starts (its first child cold)
    warm, cold = [], []
    for _ in range(REPEATS):
        warm.append(grade(True))
        cold.append(grade(False))
    return row("warm", "grade one fusion submission, zygote already up (bulk, watch)",
               statistics.median(warm), "s", peer=statistics.median(cold),
               peer_name="cold chain, same process",
               note=f"interleaved, median of {REPEATS}; lower is better")


def demo_jobs() -> str:
    """`make demo`'s --jobs: the Makefile's DEMO_JOBS default."""
    for line in (ROOT / "Makefile").read_text().splitlines():
        name, sep, value = line.partition("?=")
        if sep and name.strip() == "DEMO_JOBS":
            return value.split("#")[0].strip()
    raise RuntimeError("the Makefile sets no DEMO_JOBS")


def demo_row() -> dict:
    """`make demo`'s command (the Makefile's --jobs), warm then cold, setup done."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [PY, "-m", "autograder", "demo", "--jobs", demo_jobs(), "--out", tmp]
        warm, cold = wall(cmd, True, 1), wall(cmd, False, 1)
    return row("warm", "make demo after setup (4 example zips x 8 assignments)", warm, "s",
               peer=cold, peer_name="cold chain (TRAINING_SYSTEMS_WARM=0)",
               note="one run each; lower is better")


TABLE_LINE = "demo: the bundled examples"  # the summary table's title (authoring/demo.py)


def to_the_table(clone: Path, warm: bool) -> float:
    """Seconds from `make demo` in `clone` (no .venv yet: setup runs first, with this machine's
    package caches) to the demo's table on its stdout; raises when it never comes."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env[settings.WARM.name] = "1" if warm else "0"
    started = time.perf_counter()
    proc = subprocess.Popen(["make", "demo"], cwd=clone, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True)
    seen, tail = None, ""
    for line in proc.stdout:
        tail = line.strip() or tail
        if seen is None and TABLE_LINE in line:
            seen = time.perf_counter() - started
    proc.wait(timeout=3600)
    if seen is None or proc.returncode != 0:
        raise RuntimeError(f"make demo exited {proc.returncode} without its table: {tail[:150]}")
    return seen


def fresh_clone_row() -> dict:
    """A newcomer's first command: `git clone` of this checkout's HEAD, then `make demo` (setup
    with this machine's package caches, then the demo) until its table shows, warm then cold
    (each in a clone of its own)."""
    seconds = {}
    with tempfile.TemporaryDirectory(prefix="bench-fresh-demo-") as tmp:
        for warm in (True, False):
            clone = Path(tmp) / ("warm" if warm else "cold")
            subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True,
                           timeout=600)
            seconds[warm] = to_the_table(clone, warm)
            shutil.rmtree(clone)
    return row("warm", "fresh clone: make demo (setup, warm package caches) to the demo's table",
               seconds[True], "s", peer=seconds[False],
               peer_name="cold chain (TRAINING_SYSTEMS_WARM=0)",
               note="one run each; lower is better")


def _machine_cpu() -> float:
    """CPU seconds the whole machine has spent (user, nice, system) since boot, from
    /proc/stat: a killed sandboxed child is reaped outside the grader's process tree, so
    RUSAGE_CHILDREN misses it; this counts everything, so run the bench on a quiet machine."""
    fields = open("/proc/stat").readline().split()[1:4]
    return sum(int(f) for f in fields) / os.sysconf("SC_CLK_TCK")


def bulk_cpu_row(name: str) -> dict:
    """CPU seconds per student of `bulk --jobs 2` on CLASS_SIZE copies of the reference."""
    import shutil

    from autograder.assignments import load

    package = load(name).solutions / name
    cpu = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(CLASS_SIZE):
            dest = Path(tmp) / "class" / f"student{i:02d}" / name
            shutil.copytree(package, dest, ignore=shutil.ignore_patterns("__pycache__"))
            with open(dest / "__init__.py", "a", encoding="utf-8") as f:
                f.write(f"\n# student {i}\n")  # distinct content: no resume, no cluster
        for warm in (True, False):
            before = _machine_cpu()
            wall([PY, "-m", "autograder", "bulk", str(Path(tmp) / "class"), "--assignment",
                  name, "--jobs", "2", "--out", str(Path(tmp) / f"out-{warm}")], warm, 1)
            cpu[warm] = (_machine_cpu() - before) / CLASS_SIZE
    return row("warm", f"bulk --jobs 2, {CLASS_SIZE} {name} submissions: CPU s per student",
               cpu[True], "s", peer=cpu[False], peer_name="cold chain (TRAINING_SYSTEMS_WARM=0)",
               note="the machine's CPU during the run (/proc/stat; a quiet machine); lower is "
                    "better")


BATTERY_CPU = r"""
import resource, runpy, sys
sys.path[:0] = [sys.argv[1] + "/solutions", sys.argv[1] + "/tests/ddp", sys.argv[1]]
import common
if sys.argv[2] == "apart":
    common.Battery._run_in_turn = lambda self, workdir, names, deadline, results: 0
common.warm_up_optimizer()
batteries = [runpy.run_path(f"{sys.argv[1]}/tests/ddp/{v}/test_data_parallel.py",
                            run_name="battery")["BATTERY"] for v in ("public", "hidden")]
def cpu():
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                   resource.getrusage(resource.RUSAGE_CHILDREN)))
start = cpu()
for b in batteries:
    if any(out["raised"] for rank in b._run_workers(b.cases(seed=1)) for out in rank.values()):
        raise SystemExit("a section raised")
print(cpu() - start)
"""


def battery_row() -> dict:
    """ddp's battery on the reference: CPU seconds in turn vs apart (median of REPEATS each,
    interleaved, each in a fresh interpreter)."""
    import subprocess

    def cpu(way: str) -> float:
        done = subprocess.run([PY, "-c", BATTERY_CPU, str(ROOT), way], capture_output=True,
                              text=True, timeout=300, check=True, cwd=ROOT)
        return float(done.stdout.split()[-1])

    in_turn, apart = [], []
    for _ in range(REPEATS):
        in_turn.append(cpu("in_turn"))
        apart.append(cpu("apart"))
    return row("warm", "ddp battery (public + hidden, reference): CPU s", statistics.median(in_turn),
               "s", peer=statistics.median(apart),
               peer_name="every section apart (one process per rank and section)",
               note=f"rusage of the process and its ranks, median of {REPEATS}; lower is better")


def watch_row(name: str) -> dict:
    """Seconds from a save to the redrawn report under `watch`, in this process."""
    import queue
    import threading

    from autograder.assignments import load
    from autograder.grading import pipeline
    from autograder.grading.job import GradeJob
    from autograder.watch import watch

    assignment = load(name)

    def seconds(warm: bool) -> float:
        os.environ[settings.WARM.name] = "1" if warm else "0"
        saves: queue.Queue = queue.Queue()
        reported: queue.Queue = queue.Queue()

        def batches():
            while (names := saves.get()) is not None:
                yield names

        worker = threading.Thread(target=watch, daemon=True, args=(
            lambda: pipeline.grade(GradeJob(assignment.solutions, assignment.root, "check",
                                            (assignment.name,), visibilities=("public",))),
            lambda result, names: reported.put(time.perf_counter()), batches()))
        worker.start()
        reported.get(timeout=600)
        took = []
        for _ in range(2 + REPEATS):  # the first two settle the zygote
            saved = time.perf_counter()
            saves.put(["engine.py"])
            took.append(reported.get(timeout=600) - saved)
        saves.put(None)
        worker.join(timeout=60)
        return statistics.median(took[2:])

    warm, cold = seconds(True), seconds(False)
    return row("warm", f"check --watch {name}: a save to the redrawn report", warm, "s",
               peer=cold, peer_name="cold chain (TRAINING_SYSTEMS_WARM=0)",
               note=f"reference solution, median of {REPEATS} saves; lower is better")


def rows() -> list[dict]:
    why = warmbox.probe(SandboxPolicy.create())
    if why is not None:
        return [not_measured("warm", "warm vs cold", why)]
    out: list[dict] = []
    for name in ("minigrad", "fusion"):
        cmd = [PY, "-m", "autograder", "check", name, "--impl", "solutions"]
        out += guarded("warm", [f"check {name}"],
                       lambda name=name, cmd=cmd: [command_row(f"check {name} (reference)", cmd)])
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [PY, "-m", "autograder", "grade", "solutions", "--assignment", "fusion", "--out",
               tmp]
        out += guarded("warm", ["grade fusion"],
                       lambda: [command_row("grade one fusion submission (reference)", cmd)])
    out += guarded("warm", ["grade fusion, zygote up"], lambda: [in_process_row()])
    for name in ("minigrad", "fusion"):
        out += guarded("warm", [f"watch {name}"], lambda name=name: [watch_row(name)])
    out += guarded("warm", ["make demo"], lambda: [demo_row()])
    out += guarded("warm", ["fresh clone to the demo's table"], lambda: [fresh_clone_row()])
    out += guarded("warm", ["ddp battery"], lambda: [battery_row()])
    for name in ("fusion", "minigrad", "ddp"):
        out += guarded("warm", [f"bulk {name}"], lambda name=name: [bulk_cpu_row(name)])
    return out


def main() -> None:
    print_rows(rows())


if __name__ == "__main__":
    main()
