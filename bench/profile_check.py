"""Where the seconds of `check A --impl solutions` go: a profile for docs/PERFORMANCE.md.

    python bench/profile_check.py fusion [ddp ...] [--cprofile DIR]

Runs a check (`pipeline.grade` of a check job) in this process with `--isolation none` (the
same child work, no bwrap, so the child is this process's own and its CPU time is counted) and
prints, per assignment:

- CPU seconds of the parent (this process: intake, goldens, checks.py's imports, judging) and
  of the child (everything the sandboxed pytest did), from getrusage;
- a wall timeline from the child's events file: child start -> first test start (interpreter,
  harness, imports of the test files and the package, collection), each test (start -> end),
  last test -> child exit, and the parent's judging after it.

Wall figures depend on the machine's load (print `uptime` beside them); the CPU figures much
less. With --cprofile DIR the child runs under cProfile and writes DIR/<assignment>.prof
(read it with `python -m pstats`); with --importtime DIR it runs under `-X importtime` and
its stderr is copied to DIR/<assignment>-stderr-N.txt. Patches the engine only in this process (never on disk).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.backends import host as boxes  # noqa: E402
from autograder.backends import run_folder
from autograder.grading import pipeline
from autograder.grading.job import GradeJob
from autograder.sandbox import SandboxPolicy  # noqa: E402


def cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


class Timeline:
    """Stamps the events the parent reads and the child's start (monotonic seconds)."""

    def __init__(self, cprofile: Path | None, name: str, importtime: Path | None = None):
        self.events: list[tuple[float, dict]] = []
        self.started: float | None = None
        self.exited: float | None = None
        self.cprofile, self.name, self.importtime = cprofile, name, importtime
        self.cpu_out: Path | None = None

    def install(self) -> None:
        read, start, tl = run_folder.EventReader.read, boxes.HostBox.start, self
        after = boxes.HostBox.after_child

        def stamped_read(reader):
            evs = read(reader)
            now = time.monotonic()
            tl.events += [(now, ev) for ev in evs]
            return evs

        def stamped_start(box, boot, config, *rest):
            tl.started = time.monotonic()
            command = box.sandbox.command

            def profiled(*a, **kw):
                cmd = command(*a, **kw)
                i = cmd.argv.index(str(boot))
                if tl.cprofile is not None:
                    out = tl.cprofile / f"{tl.name}.prof"
                    cmd.argv[i:i] = [str(ROOT / "bench" / "child_cprofile.py"), str(out)]
                if tl.cpu_out is not None:
                    cmd.argv[i:i] = [str(ROOT / "bench" / "child_cpu.py"), str(tl.cpu_out)]
                if tl.importtime is not None:  # an interpreter option: right after python
                    j = cmd.argv.index(sys.executable) + 1
                    cmd.argv[j:j] = ["-X", "importtime"]
                return cmd

            box.sandbox.command = profiled
            box.cs_stderr = rest[-1]
            return start(box, boot, config, *rest)

        def copy_stderr(box):
            tl.exited = time.monotonic()
            if tl.importtime is not None and getattr(box, "cs_stderr", None):
                dest = tl.importtime / f"{tl.name}-{box.cs_stderr.name}.txt"
                dest.write_bytes(Path(box.cs_stderr).read_bytes())
            return after(box)

        run_folder.EventReader.read = stamped_read
        boxes.HostBox.start = stamped_start
        boxes.HostBox.after_child = copy_stderr


def profile(tl: Timeline, name: str) -> None:
    """Print one assignment's figures (see the module docstring)."""
    tl.name, tl.events, tl.started, tl.exited = name, [], None, None
    fd, cpu_path = tempfile.mkstemp(prefix=f"cpu-{name}-", suffix=".jsonl")
    os.close(fd)
    tl.cpu_out = Path(cpu_path)
    self0, child0, t0 = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN), time.monotonic()
    results = pipeline.grade(GradeJob(ROOT / "solutions", ROOT, "check", (name,),
                                      policy=SandboxPolicy.create("none")))
    t1 = time.monotonic()
    parent = cpu(resource.RUSAGE_SELF) - self0
    child = cpu(resource.RUSAGE_CHILDREN) - child0
    lines = [json.loads(x) for x in tl.cpu_out.read_text().splitlines() if x.strip()]
    tl.cpu_out.unlink()
    print(f"== {name}: {results.score:g}/{results.max_score:g}  wall {t1 - t0:.2f} s "
          f"(load {os.getloadavg()[0]:.2f})  CPU: parent {parent:.2f} s, child and its "
          f"processes {child:.2f} s")
    if lines:
        st, tests = lines[0]["stages"], lines[0]["tests"]
        own = st["main_returned"]
        print("   child CPU (its own process):")
        print(f"     interpreter start                {st['interpreter']:6.2f} s")
        print(f"     boot + pytest + harness imports  {st['pytest_main'] - st['interpreter']:6.2f} s")
        print(f"     collection (test files, package) {st['collected'] - st['pytest_main']:6.2f} s")
        for test_id, seconds in tests.items():
            print(f"       {test_id:52s} {seconds:6.2f} s")
        print(f"     tests in all                     {sum(tests.values()):6.2f} s")
        print(f"     after the tests, to pytest.main's return {own - st['collected'] - sum(tests.values()):6.2f} s")
        print(f"     teardown after pytest.main + other processes {child - own:6.2f} s")
    starts = {ev["id"]: t for t, ev in tl.events if ev["ev"] == "start" and "id" in ev}
    ends = {ev["id"]: t for t, ev in tl.events if ev["ev"] == "end" and "id" in ev}
    first = min(starts.values(), default=t1)
    last = max(ends.values(), default=first)
    done = next((t for t, ev in tl.events if ev["ev"] == "done"), last)
    exited = tl.exited or done
    print("   wall timeline:")
    print(f"     parent before the child starts   {(tl.started or t0) - t0:6.2f} s")
    print(f"     child start -> first test        {first - (tl.started or t0):6.2f} s")
    print(f"     first test -> last test's end    {last - first:6.2f} s")
    print(f"     last test -> 'done' event        {done - last:6.2f} s")
    print(f"     'done' -> child exited           {exited - done:6.2f} s")
    print(f"     child exited -> check returns    {t1 - exited:6.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("assignments", nargs="+")
    parser.add_argument("--cprofile", type=Path, help="write the child's cProfile here")
    parser.add_argument("--importtime", type=Path, help="write the child's -X importtime here")
    args = parser.parse_args()
    for d in (args.cprofile, args.importtime):
        if d:
            d.mkdir(parents=True, exist_ok=True)
    tl = Timeline(args.cprofile.resolve() if args.cprofile else None, "",
                  args.importtime.resolve() if args.importtime else None)
    tl.install()
    for name in args.assignments:
        profile(tl, name)


if __name__ == "__main__":
    main()
