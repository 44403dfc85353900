"""Runs graded tests in a child process and collects what it reports. Trusted; never imports
student code. Each child gets a run folder (run_folder.py: what goes in, the capped reads of
what comes out); this module supervises the child.

The parent owns every deadline: a wall timeout per test and per run. If the child crashes or
times out, the test in progress fails and the remaining tests resume in a fresh child, each
test file with its own bounded restarts, so one hang or crash does not erase a student's other
points.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import replace
from pathlib import Path

from ..assignments import VISIBILITIES, Visibility
from ..harness.config import ChildConfig
from ..harness.output import KEEP_BYTES
from ..sandbox import Capabilities, capabilities
from . import timeouts
from .base import BoxFactory, ChildBox, RunMode, RunPath, RunRequest, RunResult, Status, TestRecord
from .causes import Cause, Reason
from .run_folder import (
    DUMP_WINDOW_BYTES,
    TAIL_BYTES,
    EventReader,
    Stop,
    collect_cause,
    ended,
    file_size,
    package_names,
    prepare_run_dir,
    stop_cause,
    tail,
)

MAX_COLLECT_ERRORS = 20  # distinct collection errors kept per run folder
MAX_ERRORS_PER_FILE = 3  # of them, per test file
MAX_RESTARTS = 8  # fresh children per test file after a hang or crash in it
MAX_RUN_FACTOR = 3  # timeouts may extend a run to this many times its limit
POLL_S = 0.01  # how often the parent reads a child's events while they flow ...
QUIET_POLL_S = 0.05  # ... and once none came for QUIET_AFTER_S (a test waiting on a timeout)
QUIET_AFTER_S = 1.0
# Wall seconds a child may take to start (interpreter, pytest, imports such as torch, test-file
# collection) before its first test, on top of the per-test timeout; a loaded machine needs it.
# Between tests a child gets the per-test timeout + IDLE_S. The run's own limit bounds both.
STARTUP_S = 120.0
IDLE_S = 20.0


def run_tests(request: RunRequest, make_box: BoxFactory) -> RunResult:
    """Run the request's tests in sandboxed children started by `make_box` (a backend's box
class); never raises for anything a child does.

    A graded replay runs public and hidden tests in separate run folders and children, one
    after the other (public first), never at the same time: the public child never sees hidden
    tests or inputs (whatever it prints or raises may be shown to the student), nothing the
    hidden child writes is shown beyond a test's status, and no lock, socket, signal or
    /proc entry of one child can meet the other (docs/SECURITY.md, "No channel between
    children"). The run's deadline is shared: the hidden folder gets what the public one left,
    extended by the public one's timeouts. When the box cannot keep the hidden goldens
    unreadable to the child (`make_box.hidden_refusal`), the hidden tests are not run: each is
    recorded as refused, with the reason, and the reason is a collection error. When the public
    child could not import the package (a `package` collection error: the same import fails in
    every child), no hidden child is started: its tests stay not run, failed by that one error,
    and the submission is graded in one child instead of two. The load factor that stretches
    measured limits is read here, before the first child starts, and frozen into the request
    for the whole run (timeouts.py): a child's own load never lengthens its limits."""
    if request.slowdown is None:
        request = replace(request, slowdown=timeouts.machine_slowdown())
    started = time.monotonic()
    deadline = started + request.run_limit()
    caps = capabilities(request.policy)
    visibilities = request.visibilities
    refusal = make_box.hidden_refusal(request, caps) if request.redacted else None
    # Graded replays run public and hidden tests in separate children (one more child start per
    # graded submission) so that nothing printed or raised during public tests can carry hidden
    # tests or inputs into the report (docs/SECURITY.md).
    if request.mode == RunMode.REPLAY and len(visibilities) > 1:
        groups = [(v,) for v in visibilities]
    else:
        groups = [visibilities]
    folders = []
    for group in groups:
        folder = FolderRun(request, group, deadline, caps, make_box)
        folder.hard_deadline = started + MAX_RUN_FACTOR * request.run_limit()
        if refusal is not None and set(group) & set(request.redacted):
            folder.refuse(refusal)
        elif any(f.package_error for f in folders):
            pass  # the package does not import: a hidden child would fail the same way
        else:
            folder.run()
            deadline = folder.deadline
        folders.append(folder)
    records: dict[str, TestRecord] = {}
    for f in folders:
        records.update(f.records)
    paths = {p for f in folders for p in f.paths}
    return RunResult(records, [e for f in folders for e in f.collect_errors],
                     next((f.stderr_tail for f in folders if f.stderr_tail and not f.redact), ""),
                     sum(f.restarts for f in folders), time.monotonic() - started,
                     RunPath.MIXED if len(paths) > 1 else next(iter(paths), RunPath.COLD),
                     any(f.package_error for f in folders),
                     [n for f in folders for n in f.notes()])


class FolderRun:
    """One run folder and its children: after a crash or timeout, fresh children resume the
    tests not yet run, one test file each (at most MAX_RESTARTS times per file). Its records,
    collection errors, restarts and last stderr tail are read after `run()`."""

    def __init__(self, request: RunRequest, visibilities: tuple[str, ...], deadline: float,
                 caps: Capabilities, make_box: BoxFactory):
        self.request, self.visibilities, self.deadline, self.caps = (request, visibilities,
                                                                     deadline, caps)
        self.make_box = make_box
        plan = request.plan
        self.remaining: list[str] | None = None if plan is None else [
            i for i in plan.ids if plan.visibility_of.get(i) in visibilities]
        self.records = {i: TestRecord(i) for i in self.remaining or []}
        self.collect_errors: list[Reason] = []  # worded by grading/cause_text.py
        self.errors_of: dict[str, int] = {}  # test file -> collection errors kept from it
        self.errors_cut, self.events_cut = 0, 0
        self.restarts, self.stderr_tail = 0, ""
        self.printed = 0  # bytes its children printed (their events' count, or their files')
        self.over_budget = False  # one of them printed past its budget
        self._child_printed = 0  # the running child's own count
        self.exit_status: int | None = None  # the last child's, when it exited by itself
        self.limit = request.test_timeout(None)  # the limit of the test in progress
        self.cold = False  # the running child is a fresh interpreter, not a zygote's fork
        self.package_error = False  # a child said the package's own import failed
        self.paths: list[RunPath] = []  # how each child started (the box's `paths`; cold if none)
        limit = request.run_limit()
        self.hard_deadline = deadline + (MAX_RUN_FACTOR - 1) * limit
        self.redact = bool(set(visibilities) & set(request.redacted))
        # how a redacted folder's tests are named in what the student sees
        self.label = "hidden" if Visibility.HIDDEN in visibilities else "graded public"

    def notes(self) -> list[Reason]:
        """What to tell beside the tests: that its children printed past their budget
        (harness/output.py), with how much only where the child's output may be shown (a
        redacted child chose how much it printed: the count would be a channel)."""
        if not self.over_budget:
            return []
        return [Reason(Cause.PRINTED, count=None if self.redact else self.printed,
                    limit=KEEP_BYTES, label=self.label if self.redact else None)]

    def refuse(self, reason: str) -> FolderRun:
        """Run nothing: every test of this folder is recorded as refused for `reason`."""
        why = Reason(Cause.REFUSED, detail=reason)
        for rec in self.records.values():
            rec.status, rec.cause = Status.REFUSED, why
        self.collect_errors.append(why)
        return self

    def run(self) -> FolderRun:
        if self.remaining == []:
            return self
        req = self.request
        run = prepare_run_dir(req.assignment, req.impl_root, self.visibilities, req.inputs_base,
                              req.mode == RunMode.GEN)
        box = None
        try:
            box = self.make_box(run, req, self.caps)
            self._run_groups(box, run)
            self._note_cuts()
            self.paths = list(getattr(box, "paths", [RunPath.COLD]))
        finally:
            if box is not None:
                box.close()
            if not req.keep:
                shutil.rmtree(run, ignore_errors=True)
        return self

    def _run_groups(self, box: ChildBox, run: Path) -> None:
        """The first child runs every test. When a test hangs or crashes it, a fresh child
        runs the tests not yet run, all files together (one child start per hang, not one per
        file), and the restart counts against the test file that hung: a file stopped
        MAX_RESTARTS times has its remaining tests dropped, so a hang in one task's code never
        costs another file's tests. Each timeout moves the run deadline by that test's limit
        (up to MAX_RUN_FACTOR x the run limit), so time lost to hangs is not taken from the
        tests that still have to run."""
        req = self.request
        ids = self.remaining
        restarts_of: dict[str, int] = {}
        attempt = 0
        while True:
            in_progress, finished, reason = self._child(box, run, attempt, ids, None)
            window = "" if self.redact else tail(run / f"stderr-{attempt}", DUMP_WINDOW_BYTES)
            self.stderr_tail = window[-TAIL_BYTES:]
            printed = max(self._child_printed, *(file_size(run / f"{name}-{attempt}")
                                                 for name in ("stdout", "stderr")))
            self.printed += printed
            self.over_budget |= printed > KEEP_BYTES
            if not req.keep:  # what a child wrote is read; free the disk at once
                for name in (f"stdout-{attempt}", f"stderr-{attempt}", f"events-{attempt}.jsonl"):
                    (run / name).unlink(missing_ok=True)
            attempt += 1
            if in_progress is not None:
                rec = self.records.setdefault(in_progress, TestRecord(in_progress))
                rec.status = Status.TIMEOUT if reason is Stop.TIMEOUT else Status.CRASHED
                rec.cause = stop_cause(reason, self.limit, window, self.exit_status)
                if reason is Stop.TIMEOUT:
                    self.deadline = min(self.deadline + self.limit, self.hard_deadline)
            if ids is None:  # gen mode: one child runs everything; no restarts
                self._note_stop(finished, reason, ids)
                return
            ids = [i for i in ids if self.records[i].status == Status.NOT_RUN]
            if finished or in_progress is None or not ids or reason is Stop.RUN_TIMEOUT:
                self._note_stop(finished, reason, ids)
                if reason is Stop.RUN_TIMEOUT:
                    self._not_run_for_deadline(ids)
                return
            self.restarts += 1
            file = self._file_of(in_progress)
            restarts_of[file] = restarts_of.get(file, 0) + 1
            dropped = [i for i in ids if self._file_of(i) == file]
            if restarts_of[file] > MAX_RESTARTS and dropped:
                self.collect_errors.append(Reason(Cause.RESTARTS_EXCEEDED, file=file,
                                               limit=MAX_RESTARTS, count=len(dropped)))
                ids = [i for i in ids if self._file_of(i) != file]
                if not ids:
                    return

    def _note_cuts(self) -> None:
        """One line for what the caps cut. A hidden child chose how much it wrote: the count
        would be a channel, so its line gives none."""
        if self.redact and (self.errors_cut or self.events_cut):
            self.collect_errors.append(Reason(Cause.OUTPUT_CUT, label=self.label))
            return
        if self.errors_cut:
            self.collect_errors.append(Reason(Cause.ERRORS_CUT, count=self.errors_cut))
        if self.events_cut:
            self.collect_errors.append(Reason(Cause.EVENTS_CUT, count=self.events_cut))

    def _file_of(self, test_id: str) -> str:
        plan = self.request.plan
        return (plan.file_of.get(test_id) if plan is not None else None) or "?"

    def _not_run_for_deadline(self, ids: list[str]) -> None:
        if ids and not self._ran_out():
            self._note_stop(False, Stop.RUN_TIMEOUT, ids)

    def _ran_out(self) -> bool:
        return any(e.cause is Cause.RUN_TIMEOUT for e in self.collect_errors)

    def _note_stop(self, finished: bool, reason: Stop, remaining: list[str] | None) -> None:
        if not finished and remaining and reason is not Stop.RUN_TIMEOUT:
            self.collect_errors.append(Reason(Cause.EXITED_EARLY,
                                           label=self.label if self.redact else None,
                                           last=self.stderr_tail[-800:] or None))
        if reason is Stop.RUN_TIMEOUT and not self._ran_out():
            self.collect_errors.append(Reason(Cause.RUN_TIMEOUT, limit=self.request.run_limit()))

    def _config(self, run: Path, events: Path, ids: list[str] | None, file: str | None,
                cold: bool) -> ChildConfig:
        """The child's configuration. Its `timeouts` are the limits the parent will apply
        (the child dumps its stack shortly before one: harness/hang_dump.py): a `cold` child's,
        not shortened (base.RunRequest.test_timeout)."""
        req = self.request
        return ChildConfig(
            mode=req.mode, assignment=req.assignment.name, events=str(events),
            lib=str(run / "lib"), impl=str(run / "impl"), workdir=str(run / "work"),
            rootdir=str(run / "tests"), ini=str(run / "tests" / "pytest.ini"),
            inputs={v: str(run / "inputs" / f"{v}.json") for v in VISIBILITIES},
            test_files=[str(run / "tests" / v / f.name) for v in self.visibilities
                        for f in req.assignment.test_files(v)
                        if file is None or f.name == file],
            plan=ids, forbidden=list(req.assignment.forbidden),
            timeouts={i: req.test_timeout(i, cold) for i in ids or []}
            if req.mode == RunMode.REPLAY else {},
            reverse=req.reverse, seed_salt=req.seed_salt, package=req.assignment.package,
            package_names=package_names(req.assignment, self.visibilities),
            returns=dict(req.assignment.returns),
        )

    def _child(self, box: ChildBox, run: Path, attempt: int, ids: list[str] | None,
               file: str | None):
        """One child process running `ids` (None: every test) of `file` (None: every file).
        Returns (test id in progress when it stopped, saw 'done', reason). Events about tests
        outside its plan (another child's, or invented) are ignored."""
        req = self.request
        events_path = box.new_output_file(run / f"events-{attempt}.jsonl")
        config_path = run / f"config-{attempt}.json"
        # a box with a warm path (WarmBox: `paths`) forks its children warm; one that falls
        # back to the cold chain there has the warm limits in its config: its stack dump
        # comes early, which only writes to its stderr (the parent's limit is the cold one)
        likely_cold = not hasattr(box, "paths")
        config_path.write_text(self._config(run, events_path, ids, file, likely_cold).to_json())
        accept = None if ids is None else frozenset(ids)
        try:
            proc = box.start(run / "lib" / "autograder" / "harness" / "boot.py", config_path,
                             [events_path], list(req.assignment.forbidden),
                             run / f"stdout-{attempt}", run / f"stderr-{attempt}")
        except Exception as e:  # noqa: BLE001 - any start failure: this child never ran
            self.collect_errors.append(Reason(Cause.START_FAILED, detail=str(e)))
            box.after_child()  # what a half-started child took (its uid slot, its cgroup) goes
            return None, False, Stop.EXIT
        reader = EventReader(events_path)
        self._child_printed = 0  # the child's running count of what it printed
        # a fresh interpreter's tests pay the imports a zygote made once, each where it first
        # needs a module (base.RunRequest.test_timeout)
        self.cold = (getattr(box, "paths", None) or [RunPath.COLD])[-1] == RunPath.COLD
        current, finished, complete, reason = None, False, False, Stop.EXIT
        idle = req.test_timeout(None) + IDLE_S
        idle_deadline = time.monotonic() + req.test_timeout(None) + STARTUP_S
        test_deadline = None
        last_event = time.monotonic()
        try:
            while True:
                status = proc.poll()
                exited = status is not None
                # a warm child is the zygote's, not ours: its status is not known here
                self.exit_status = status if getattr(proc, "status_known", True) else None
                for ev in reader.read():
                    last_event = time.monotonic()
                    kind = ev["ev"]
                    total = ev.get("printed_total")
                    if type(total) is int and 0 <= total < 2**62:
                        self._child_printed = max(self._child_printed, total)
                    if kind in ("start", "end") and accept is not None \
                            and ev.get("id") not in accept:
                        continue
                    if kind == "start" and isinstance(ev.get("id"), str):
                        current = ev["id"]
                        self.limit = req.test_timeout(current, self.cold)
                        test_deadline = time.monotonic() + self.limit
                    elif kind == "end" and isinstance(ev.get("id"), str):
                        self._record_end(ev)
                        current, test_deadline = None, None
                        idle_deadline = time.monotonic() + idle
                    elif kind == "collect_error":
                        self._collect_error(ev)
                    elif kind == "done":
                        finished = True
                        complete = ev.get("exitstatus") in (0, 1)
                if exited or complete:  # tests passed or failed: nothing is left to report,
                    break  # so pytest's summary and the exit are not waited for (killed below)
                now = time.monotonic()
                if now > self.deadline:
                    reason = Stop.RUN_TIMEOUT
                elif test_deadline is not None and now > test_deadline:
                    reason = Stop.TIMEOUT
                elif current is None and now > idle_deadline:
                    reason = Stop.IDLE
                else:
                    time.sleep(POLL_S if now - last_event < QUIET_AFTER_S else QUIET_POLL_S)
                    continue
                break
        finally:
            proc.kill()
            box.after_child()
            self.events_cut += reader.cut
        if finished and reason is Stop.EXIT:
            current = None
        return current, finished, reason

    def _collect_error(self, ev: dict) -> None:
        """Keep a collection error once (a file collected again in a new child repeats it), at
        most MAX_ERRORS_PER_FILE per test file and MAX_COLLECT_ERRORS in all; count the rest."""
        if self.redact and Visibility.HIDDEN not in self.visibilities:
            # the graded public tests: the same files on the published inputs say what failed
            if ev.get("package") is True:
                self.package_error = True
            return
        if self.redact:
            why = Reason(Cause.HIDDEN_COLLECT)
            if why not in self.collect_errors:
                self.collect_errors.append(why)
            return
        file = str(ev.get("file"))[:100]
        message = collect_cause(ev, file)
        if message.cause is not Cause.COLLECT_ERROR:  # the package's own import
            self.package_error = True
        if message in self.collect_errors:
            return
        if len(self.collect_errors) >= MAX_COLLECT_ERRORS \
                or self.errors_of.get(file, 0) >= MAX_ERRORS_PER_FILE:
            self.errors_cut += 1
            return
        self.errors_of[file] = self.errors_of.get(file, 0) + 1
        self.collect_errors.append(message)

    def _record_end(self, ev: dict) -> None:
        test_id = ev["id"]
        if self.redact and test_id not in self.records:
            return  # a hidden run reports only the tests it was asked for
        rec = self.records.setdefault(test_id, TestRecord(test_id))
        if rec.status != Status.NOT_RUN:
            return  # first report wins
        ended(rec, ev, self.redact)
