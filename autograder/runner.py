"""Runs graded tests in a child process and collects what it reports. Trusted; never imports
student code.

The parent owns every deadline: a wall timeout per test and per run. If the child crashes or
times out, the test in progress fails and the remaining tests resume in a fresh child (bounded
restarts), so one crash does not erase a student's other points.
"""

from __future__ import annotations

import builtins
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .assignments import VISIBILITIES, Assignment
from .sandbox import RunSandbox

HARNESS = Path(__file__).resolve().parent / "harness"
_BUILTIN_EXCEPTIONS = {n for n, v in vars(builtins).items()
                       if isinstance(v, type) and issubclass(v, BaseException)}
MAX_EVENTS_BYTES = 64 * 2**20
MAX_RESTARTS = 8
TAIL_BYTES = 4000
POLL_S = 0.01
# Graded replays run public and hidden tests in separate children (one more child start per
# graded submission) so that nothing printed or raised during public tests can carry hidden
# tests or inputs into the report (docs/SECURITY.md).
SEPARATE_HIDDEN = True


@dataclass
class TestRecord:
    """What the child reported for one test."""

    id: str
    status: str = "not_run"  # ended | timeout | crashed | not_run
    outcome: str | None = None  # passed | failed (when ended)
    error: str | None = None
    error_type: str | None = None
    obs: list = field(default_factory=list)
    meta: dict | None = None
    inputs: object = None


@dataclass
class RunResult:
    records: dict[str, TestRecord]
    collect_errors: list[str]
    stderr_tail: str
    restarts: int
    wall_s: float


class EventReader:
    """Reads the JSON-lines events file incrementally, bounded in size; bad lines are skipped."""

    def __init__(self, path: Path):
        self.path, self.offset, self.buffer = path, 0, b""

    def read(self) -> list[dict]:
        if not self.path.exists() or self.offset >= MAX_EVENTS_BYTES:
            return []
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            chunk = f.read(MAX_EVENTS_BYTES - self.offset)
        self.offset += len(chunk)
        lines = (self.buffer + chunk).split(b"\n")
        self.buffer = lines.pop()
        events = []
        for line in lines:
            try:
                event = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(event, dict) and isinstance(event.get("ev"), str):
                events.append(event)
        return events


def _tail(path: Path) -> str:
    if not path.exists():
        return ""
    with open(path, "rb") as f:
        f.seek(max(0, path.stat().st_size - TAIL_BYTES))
        return f.read().decode("utf-8", "replace")


def prepare_run_dir(assignment: Assignment, impl_root: Path, visibilities: tuple[str, ...],
                    inputs_base: Path | None) -> Path:
    """A fresh folder with exactly what the child needs: harness, implementation copy, test
    files, stored inputs. No goldens, no solutions, nothing else."""
    run = Path(tempfile.mkdtemp(prefix=f"grade-{assignment.name}-"))
    lib = run / "lib" / "autograder"
    shutil.copytree(HARNESS, lib / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    (lib / "__init__.py").write_text("")
    pkg = impl_root / assignment.package
    shutil.copytree(pkg, run / "impl" / assignment.package,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for vis in visibilities:
        (run / "tests" / vis).mkdir(parents=True)
        for f in assignment.test_files(vis):
            shutil.copy2(f, run / "tests" / vis / f.name)
        src = assignment.inputs_path(vis, inputs_base)
        (run / "inputs").mkdir(exist_ok=True)
        if src.exists():
            shutil.copy2(src, run / "inputs" / f"{vis}.json")
    if assignment.common_module.exists():
        shutil.copy2(assignment.common_module, run / "tests" / "common.py")
    (run / "tests" / "pytest.ini").write_text("[pytest]\n")
    for d in ("work", "tmp"):
        (run / d).mkdir()
    return run


def run_tests(assignment: Assignment, impl_root: Path, mode: str, plan: list[str] | None,
              timeouts: dict[str, float] | None = None,
              visibilities: tuple[str, ...] = VISIBILITIES,
              inputs_base: Path | None = None, keep: bool = False,
              default_timeout: float | None = None,
              run_timeout: float | None = None,
              visibility_of: dict[str, str] | None = None) -> RunResult:
    """Run the assignment's tests on the package in `impl_root` (mode 'gen' or 'replay').
    `plan` lists test ids to run (None: all collected, gen mode). Never raises for anything
    the child does.

    A graded replay runs public and hidden tests in separate run folders and children: the
    public child never sees hidden tests or inputs (whatever it prints or raises may be shown
    to the student), and nothing the hidden child writes is shown beyond a test's status."""
    started = time.monotonic()
    timeouts = timeouts or {}
    default = default_timeout or assignment.test_timeout
    records: dict[str, TestRecord] = {i: TestRecord(i) for i in plan or []}
    collect_errors: list[str] = []
    run_limit = run_timeout or assignment.run_timeout
    run_deadline = started + run_limit
    if SEPARATE_HIDDEN and mode == "replay" and plan is not None \
            and {"public", "hidden"} <= set(visibilities):
        groups = [(v,) for v in visibilities]
    else:
        groups = [tuple(visibilities)]

    def run_group(group: tuple[str, ...]) -> tuple[int, str]:
        ids = None if plan is None else [
            i for i in plan if visibility_of is None or visibility_of.get(i) in group]
        if ids == []:
            return 0, ""
        redact = "hidden" in group and mode == "replay"
        n, tail = _run_folder(assignment, impl_root, mode, ids, timeouts, group, inputs_base,
                              keep, default, run_limit, run_deadline, records, collect_errors,
                              redact)
        return n, "" if redact else tail

    if len(groups) > 1 and visibility_of is not None:
        # public and hidden children run side by side: each sees only its own tests
        with ThreadPoolExecutor(max_workers=len(groups)) as pool:
            outcomes = list(pool.map(run_group, groups))
    else:
        outcomes = [run_group(g) for g in groups]
    restarts = sum(n for n, _ in outcomes)
    stderr_tail = next((t for _, t in outcomes if t), "")
    return RunResult(records, collect_errors, stderr_tail, restarts,
                     time.monotonic() - started)


def _run_folder(assignment: Assignment, impl_root: Path, mode: str, remaining: list[str] | None,
                timeouts: dict[str, float], visibilities: tuple[str, ...],
                inputs_base: Path | None, keep: bool, default: float, run_limit: float,
                run_deadline: float, records: dict[str, TestRecord], collect_errors: list[str],
                redact: bool) -> tuple[int, str]:
    """One run folder and its children (restarted after a crash). Returns (restarts, the last
    child's stderr tail)."""
    run = prepare_run_dir(assignment, impl_root, visibilities, inputs_base)
    restarts, stderr_tail = 0, ""
    box = None
    try:
        box = RunSandbox(run)
        for attempt in range(MAX_RESTARTS + 1):
            events_path = box.new_output_file(run / f"events-{attempt}.jsonl")
            config = {
                "mode": mode, "assignment": assignment.name, "events": str(events_path),
                "lib": str(run / "lib"), "impl": str(run / "impl"), "workdir": str(run / "work"),
                "rootdir": str(run / "tests"), "ini": str(run / "tests" / "pytest.ini"),
                "inputs": {v: str(run / "inputs" / f"{v}.json") for v in VISIBILITIES},
                "test_files": [str(run / "tests" / v / f.name) for v in visibilities
                               for f in assignment.test_files(v)],
                "plan": remaining, "forbidden": list(assignment.forbidden),
            }
            config_path = run / f"config-{attempt}.json"
            config_path.write_text(json.dumps(config))
            in_progress, finished, reason = _run_child(
                box, run, events_path, config_path, attempt, records, timeouts, default,
                collect_errors, run_deadline, redact,
                None if remaining is None else frozenset(remaining))
            stderr_tail = _tail(run / f"stderr-{attempt}")
            if not keep:  # what a child wrote is read; free the disk at once
                for name in (f"stdout-{attempt}", f"stderr-{attempt}", events_path.name):
                    (run / name).unlink(missing_ok=True)
            if in_progress is not None:
                rec = records.setdefault(in_progress, TestRecord(in_progress))
                rec.status = "timeout" if reason == "timeout" else "crashed"
                rec.error = _crash_message(reason, timeouts.get(in_progress) or default,
                                           "" if redact else stderr_tail)
            if remaining is not None:
                remaining = [i for i in remaining if records[i].status == "not_run"]
            if finished or in_progress is None or not remaining or reason == "run_timeout":
                if not finished and remaining and reason != "run_timeout":
                    shown = "" if redact else stderr_tail
                    collect_errors.append(
                        ("the hidden tests' process" if redact else "the test process")
                        + " exited before running these tests"
                        + (f"; its last output:\n{shown[-800:]}" if shown else ""))
                if reason == "run_timeout":
                    collect_errors.append(f"the whole run exceeded its "
                                          f"{run_limit:g} s limit")
                break
            restarts += 1
    finally:
        if box is not None:
            box.close()
        if not keep:
            shutil.rmtree(run, ignore_errors=True)
    return restarts, stderr_tail


def _crash_message(reason: str, limit: float, stderr_tail: str) -> str:
    if reason == "timeout":
        return f"timed out after {limit:g} s (an endless loop, or far too slow)"
    if reason == "run_timeout":
        return "stopped: the whole run exceeded its time limit"
    last = stderr_tail.strip().splitlines()[-1:] if stderr_tail.strip() else []
    return "the test process died during this test" + (f": {last[0][:300]}" if last else "")


def _run_child(box: RunSandbox, run: Path, events_path: Path, config_path: Path, attempt: int,
               records: dict[str, TestRecord], timeouts: dict[str, float], default: float,
               collect_errors: list[str], run_deadline: float, redact: bool = False,
               accept: frozenset[str] | None = None):
    """One child process. Returns (test id in progress when it stopped, saw 'done', reason).
    Events about tests outside `accept` (another child's, or invented) are ignored."""
    cmd = box.command(run / "lib" / "autograder" / "harness" / "boot.py", config_path,
                      [events_path])
    with open(run / f"stdout-{attempt}", "wb") as out, open(run / f"stderr-{attempt}", "wb") as err:
        try:
            proc = subprocess.Popen(cmd.argv, env=cmd.env, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=err, cwd=run / "work", start_new_session=True,
                                    preexec_fn=cmd.preexec)  # noqa: PLW1509 (None with prlimit)
        except (OSError, subprocess.SubprocessError) as e:
            collect_errors.append(f"the sandbox could not start the test process: {e}")
            return None, False, "exit"
    reader = EventReader(events_path)
    current, finished, reason = None, False, "exit"
    idle_deadline = time.monotonic() + default + 20
    test_deadline = None
    try:
        while True:
            exited = proc.poll() is not None
            for ev in reader.read():
                kind = ev["ev"]
                if kind in ("start", "end") and accept is not None and ev.get("id") not in accept:
                    continue
                if kind == "start" and isinstance(ev.get("id"), str):
                    current = ev["id"]
                    limit = timeouts.get(current) or default
                    test_deadline = time.monotonic() + limit
                elif kind == "end" and isinstance(ev.get("id"), str):
                    _record_end(records, ev, redact)
                    current, test_deadline = None, None
                    idle_deadline = time.monotonic() + default + 20
                elif kind == "collect_error" and redact:
                    message = "a hidden test file could not be collected (details hidden)"
                    if message not in collect_errors:
                        collect_errors.append(message)
                elif kind == "collect_error":
                    collect_errors.append(f"{str(ev.get('file'))[:100]}: "
                                          f"{str(ev.get('error'))[-1500:]}")
                elif kind == "done":
                    finished = True
            if exited:
                break
            now = time.monotonic()
            if now > run_deadline:
                reason = "run_timeout"
            elif test_deadline is not None and now > test_deadline:
                reason = "timeout"
            elif current is None and now > idle_deadline:
                reason = "idle"
            else:
                time.sleep(POLL_S)
                continue
            break
    finally:
        _kill_group(proc)
        box.after_child()
    if finished and reason == "exit":
        current = None
    return current, finished, reason


def _record_end(records: dict[str, TestRecord], ev: dict, redact: bool = False) -> None:
    test_id = ev["id"]
    if redact and test_id not in records:
        return  # a hidden run reports only the tests it was asked for
    rec = records.setdefault(test_id, TestRecord(test_id))
    if rec.status != "not_run":
        return  # first report wins
    rec.status = "ended"
    rec.outcome = "passed" if ev.get("outcome") == "passed" else "failed"
    rec.error = str(ev["error"])[:2000] if ev.get("error") else None
    rec.error_type = str(ev["error_type"])[:100] if ev.get("error_type") else None
    if redact and rec.error_type not in _BUILTIN_EXCEPTIONS:
        rec.error_type = None  # a hidden test's failure may name only a builtin exception
    rec.obs = ev.get("obs") if isinstance(ev.get("obs"), list) else []
    rec.meta = ev.get("meta") if isinstance(ev.get("meta"), dict) else None
    rec.inputs = ev.get("inputs")


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
