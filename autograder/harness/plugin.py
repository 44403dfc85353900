"""pytest plugin that runs graded tests and records what they observed.

`RecordingPlugin` is the plugin object, one per pytest session, its state on the instance; it is
reachable from fixtures through `config.stash[RECORDING_PLUGIN]`. Who registers it sets the mode:
- ``gen`` (boot.py, config.mode): golden generation on trusted code: inputs come from each
  test's ``cases(rng)``; the events carry inputs, metadata and observations.
- ``replay`` (boot.py): a graded run: inputs come from the stored inputs file; events carry
  observations.
- local (autograder/grading/local_pytest.py, config None): pytest run directly; stored public inputs, and each
  observation goes to the `local_checker` given (the parent's comparison, which lives outside
  this package: nothing here imports the rest of the engine).

Events are JSON lines appended to config.events: start, end, collect_error, done.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import traceback
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from . import GradedSpec, Recorder, exception_kind
from .config import ChildConfig
from .hang_dump import HangDump
from .missing_names import missing_name
from .output import PrintBudget
from .plaindata import decode, encode
from .returned import ReturnedTypes

MAX_ERROR_CHARS = 2000
HANG_DUMP_AT = 0.8  # of a test's timeout: dump the stacks, so the parent can say where it hung
# (test id, assignment folder, visibility) -> a function called with each observation
LocalChecker = Callable[[str, Path, str], Callable[[dict], None]]


def case_seed(assignment: str, test_id: str, salt: str = "") -> int:
    """Seed of a test's input generator: stable across machines and runs. With a `salt` (the
    graded input set's secret, stored with the instructor's goldens only), a 256-bit seed that
    nobody without the salt can reproduce."""
    if salt:
        digest = hashlib.sha256(f"{assignment}/{test_id}/{salt}".encode()).digest()
        return int.from_bytes(digest, "big")
    return zlib.crc32(f"{assignment}/{test_id}".encode())


def raised_by_collection(error: BaseException) -> BaseException:
    """What a test file's collection really raised: the ImportError or SyntaxError that
    pytest's CollectError wraps (its `__cause__`), else `error` itself."""
    if isinstance(error, pytest.Collector.CollectError) and error.__cause__ is not None:
        return error.__cause__
    return error


def exception_line(error: BaseException) -> str:
    """`Type: message` as Python's last traceback line names an exception (the type
    module-qualified unless a builtin), its message's lines joined by spaces."""
    kind = type(error)
    name = kind.__qualname__ if kind.__module__ in ("builtins", "__main__") \
        else f"{kind.__module__}.{kind.__qualname__}"
    try:
        message = " ".join(str(error).splitlines())
    except Exception:  # noqa: BLE001 - a hostile __str__: the type says enough
        message = ""
    return (f"{name}: {message}" if message else name)[-MAX_ERROR_CHARS:]


def package_import_site(error: BaseException, impl_root: Path) -> dict | None:
    """Where a test file's collection error entered the implementation, read from the
    exception itself: the innermost frame of its traceback in `impl_root`'s files, as plain
    fields {"file" (relative to `impl_root`), "line", "error" (`exception_line`), "source"
    (that frame's source line)}; None when the traceback never enters it. The parent words it
    (backends/causes.py, grading/cause_text.py)."""
    frames = [(Path(f.filename), f) for f in traceback.extract_tb(error.__traceback__)]
    inside = [(path, f) for path, f in frames if path.is_relative_to(impl_root)]
    if not inside:
        return None
    path, frame = inside[-1]
    return {"file": path.relative_to(impl_root).as_posix()[-MAX_ERROR_CHARS:],
            "line": frame.lineno, "error": exception_line(error),
            "source": (frame.line or "").strip()[-MAX_ERROR_CHARS:]}


def brief_failure(excinfo: pytest.ExceptionInfo) -> str:
    """A graded test's failure as pytest's own report holds it in a graded child: the
    exception's line, not pytest's formatted traceback. Nobody reads that report there (the
    child's stdout is discarded; `RecordingPlugin` records the error, its type and the student's
    frame from the exception itself), and formatting it (every frame's source, read and
    laid out) was a third of a failing submission's CPU. Collection errors keep pytest's
    format (the student may read it); the plugin reads their exception itself."""
    return excinfo.exconly()


def forbidden_module(error: BaseException | None) -> str | None:
    """The module a forbidden-import blocker refused (its `graded_forbidden`: boot.py's
    finder, the view's stubs), or None."""
    module = getattr(error, "graded_forbidden", None)
    return module[:200] if isinstance(module, str) else None


def reported_where(error: BaseException) -> dict | None:
    """The student frame a test attached to the error it re-raises (`graded_where`, from
    harness.student_where: student code that ran in another process), or None."""
    where = getattr(error, "graded_where", None)
    if not isinstance(where, dict) or not isinstance(where.get("file"), str) \
            or type(where.get("line")) is not int:
        return None
    function = where.get("function")
    return {"function": function if isinstance(function, str) else None,
            "file": where["file"], "line": where["line"], "student": True}


def graded_spec(item: pytest.Item) -> GradedSpec | None:
    return getattr(getattr(item, "function", None), "_graded", None)


def visibility_of(path: Path) -> str:
    return "hidden" if path.parent.name == "hidden" else "public"


def assignment_dir(path: Path) -> Path:
    return path.parent.parent


class RecordingPlugin:
    """The recording plugin of one pytest session (see the module docstring)."""

    def __init__(self, config: ChildConfig | None, local_checker: LocalChecker | None = None,
                 impl_root: str | None = None, budget: PrintBudget | None = None,
                 returned: ReturnedTypes | None = None):
        self.config = config
        self.returned = returned  # a graded child's record of the contract's returned types
        # a graded child's capped stdout and stderr (boot.py): what each test printed
        self.budget = budget
        self.printed: dict[str, tuple[int, str]] = {}  # test id -> (bytes, the tail)
        self.local_checker = local_checker
        # where the implementation under test lives: errors are located in its files
        self.impl_root = Path(config.impl if config else impl_root or "/nonexistent")
        self.recorders: dict[str, Recorder] = {}
        self.inputs_cache: dict[str, dict] = {}
        self.generated: dict[str, Any] = {}
        self.errors: dict[str, str] = {}
        self.error_types: dict[str, str] = {}
        self.error_kinds: dict[str, str] = {}  # the first builtin class (hints match on it)
        self.wheres: dict[str, dict] = {}
        self.forbidden: dict[str, str] = {}  # test id -> the module a blocker refused it
        self.missing: dict[str, str] = {}  # test id -> the package's name it lacked (used)
        # a failed collect report's node id -> what its exception says (pytest_exception_interact)
        self.collected: dict[str, dict] = {}
        self.started: dict[str, float] = {}  # test id -> perf_counter at its start event
        # hang dumps go to the child's real stderr (pytest captures fd 2 during tests)
        self.hang_dump = HangDump(os.dup(2)) if config is not None and config.timeouts else None

    @property
    def local(self) -> bool:
        return self.config is None

    def emit(self, event: dict) -> None:
        if self.config is None:
            return
        with open(self.config.events, "a", encoding="utf-8") as f:
            f.write(json.dumps(event, allow_nan=False) + "\n")

    def pytest_configure(self, config: pytest.Config) -> None:
        config.stash[RECORDING_PLUGIN] = self

    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        plan = None if self.config is None else self.config.plan
        keep, seen = [], set()
        for item in items:
            spec = graded_spec(item)
            if spec is not None and spec.id in seen:
                raise pytest.UsageError(f"two graded tests share the id {spec.id!r}")
            if spec is not None:
                seen.add(spec.id)
            if spec is None:
                if self.local:
                    keep.append(item)  # local mode: ordinary tests run as usual
                continue
            if hasattr(item, "callspec"):
                raise pytest.UsageError(f"graded test {spec.id} is parametrized: loop over cases")
            if plan is None or spec.id in plan:
                keep.append(item)
        deselected = [i for i in items if i not in keep]
        if deselected and not self.local:
            config.hook.pytest_deselected(items=deselected)
        if self.config is not None and self.config.reverse:
            keep.reverse()  # golden time: the reference timed in the other order too
        items[:] = keep
        if not self.local:  # a student's own pytest run keeps its tracebacks
            for item in keep:
                item.repr_failure = brief_failure

    def pytest_exception_interact(self, node: pytest.Item | pytest.Collector,
                                  call: pytest.CallInfo, report: pytest.CollectReport) -> None:
        """A collection error's exception (pytest calls this before pytest_collectreport),
        kept for that report as plain fields: its line, where it entered the implementation
        (`package_import_site`) and the module a blocker refused (pytest's CollectError is
        raised from the ImportError)."""
        if isinstance(node, pytest.Collector) and call.excinfo is not None:
            error = raised_by_collection(call.excinfo.value)
            self.collected[report.nodeid] = {
                "exception": exception_line(error),
                "import": package_import_site(error, self.impl_root),
                "forbidden": forbidden_module(call.excinfo.value)
                or forbidden_module(call.excinfo.value.__cause__)}

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            raised = self.collected.pop(report.nodeid, {})
            site = raised.get("import")
            self.emit({"ev": "collect_error", "file": Path(str(report.fspath)).name,
                       "error": str(report.longreprtext)[-MAX_ERROR_CHARS:],
                       "exception": raised.get("exception"), "package": site is not None,
                       "import": site, "forbidden": raised.get("forbidden") if site else None})

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        spec = graded_spec(item)
        if spec is not None:
            self.emit({"ev": "start", "id": spec.id})
            self.started[spec.id] = time.perf_counter()
            if self.budget is not None:
                self.budget.mark()
            if self.returned is not None:
                self.returned.mark()
            limit = self.config.timeouts.get(spec.id) if self.config else None
            if limit and self.hang_dump is not None:
                self.hang_dump.arm(HANG_DUMP_AT * float(limit))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        outcome = yield
        report = outcome.get_result()
        spec = graded_spec(item)
        if spec is None:
            return
        if self.budget is not None and (report.when == "call" or report.failed) \
                and spec.id not in self.printed:
            self.printed[spec.id] = self.budget.since_mark()  # before pytest's progress mark
        if report.failed and spec.id not in self.errors:
            excinfo = call.excinfo
            if excinfo is not None:
                self.errors[spec.id] = excinfo.exconly()[:MAX_ERROR_CHARS]
                self.error_types[spec.id] = excinfo.typename
                self.error_kinds[spec.id] = exception_kind(excinfo.value)
                if (module := forbidden_module(excinfo.value)) is not None:
                    self.forbidden[spec.id] = module
                if (name := missing_name(excinfo.value)) is not None:
                    self.missing[spec.id] = name
                where = reported_where(excinfo.value) or self.locate(excinfo.traceback)
                if where is not None:
                    self.wheres[spec.id] = where
            else:
                self.errors[spec.id] = str(report.longreprtext)[-MAX_ERROR_CHARS:]
        if report.when == "teardown":
            self.finish(item, spec)

    def locate(self, traceback: Any) -> dict | None:
        """Where an exception was raised, in the student's terms: the deepest frame in the
        implementation's files (function, file relative to the implementation root, line),
        else the test's own line."""
        entries = list(traceback)
        for entry in reversed(entries):
            path = Path(str(entry.path))
            if path.is_relative_to(self.impl_root):
                code = entry.frame.code.raw
                return {"function": getattr(code, "co_qualname", code.co_name),
                        "file": path.relative_to(self.impl_root).as_posix(),
                        "line": entry.lineno + 1, "student": True}
        for entry in reversed(entries):
            path = Path(str(entry.path))
            if path.name.startswith("test_"):
                return {"function": entry.name, "file": path.name, "line": entry.lineno + 1,
                        "student": False}
        return None

    def finish(self, item: pytest.Item, spec: GradedSpec) -> None:
        if self.hang_dump is not None:
            self.hang_dump.cancel()
        rec = self.recorders.pop(item.nodeid, None)
        event = {"ev": "end", "id": spec.id,
                 "outcome": "failed" if spec.id in self.errors else "passed",
                 "error": self.errors.get(spec.id), "error_type": self.error_types.get(spec.id),
                 "error_kind": self.error_kinds.get(spec.id),
                 "where": self.wheres.get(spec.id), "forbidden": self.forbidden.get(spec.id),
                 "missing": self.missing.get(spec.id),
                 "obs": rec.observations if rec else []}
        if spec.id in self.started:  # wall seconds from start to end (golden time: timeouts)
            event["seconds"] = time.perf_counter() - self.started.pop(spec.id)
        if self.budget is not None:  # what it printed (the parent shows a failing test's tail)
            _, tail = self.printed.pop(spec.id, (0, ""))
            event["printed_total"] = self.budget.total  # the child's running count
            if tail:
                event["output"] = tail
        if self.returned is not None and self.returned.since_mark():
            event["returned"] = self.returned.since_mark()
        if self.config is not None and self.config.mode == "gen":
            path = Path(str(item.path))
            event["meta"] = {"points": spec.points, "timeout": spec.timeout,
                             "measured": spec.measured, "visibility": visibility_of(path),
                             "file": path.name}
            event["inputs"] = self.generated.get(spec.id)
        self.emit(event)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        # exitstatus 0 or 1 (tests passed or failed): nothing but pytest's summary follows, and
        # the parent stops the child at once; otherwise it waits for the error pytest prints
        self.emit({"ev": "done", "exitstatus": int(exitstatus),
                   **({"printed_total": self.budget.total} if self.budget is not None else {})})

    def load_inputs(self, path: Path) -> dict:
        key = str(path)
        if key not in self.inputs_cache:
            self.inputs_cache[key] = (json.loads(path.read_text(encoding="utf-8"))
                                      if path.exists() else {})
        return self.inputs_cache[key]

    def cases_for(self, spec: GradedSpec, path: Path) -> Any:
        if self.config is not None and self.config.mode == "gen":
            rng = np.random.default_rng(case_seed(self.config.assignment,
                                                  spec.shared_seed or spec.id,
                                                  self.config.seed_salt))
            data = encode(spec.cases(rng))
            self.generated[spec.id] = data
            return decode(data)
        if self.config is not None:
            store = self.load_inputs(Path(self.config.inputs[visibility_of(path)]))
        else:
            store = self.load_inputs(assignment_dir(path) / "inputs" / f"{visibility_of(path)}.json")
        if spec.id not in store:
            raise RuntimeError(f"no stored inputs for {spec.id}: run `make goldens`")
        return decode(store[spec.id])

    def recorder_for(self, spec: GradedSpec, item: pytest.Item) -> Recorder:
        on_record = None
        if self.local and self.local_checker is not None:
            path = Path(str(item.path))
            on_record = self.local_checker(spec.id, assignment_dir(path), visibility_of(path))
        recorder = Recorder(spec.id, on_record)
        self.recorders[item.nodeid] = recorder
        return recorder


RECORDING_PLUGIN = pytest.StashKey[RecordingPlugin]()


@pytest.fixture
def cases(request: pytest.FixtureRequest) -> Any:
    """The test's stored inputs (generated from its seed at golden time)."""
    spec = graded_spec(request.node)
    if spec is None or spec.cases is None:
        return None
    return request.config.stash[RECORDING_PLUGIN].cases_for(spec, Path(str(request.node.path)))


@pytest.fixture
def rec(request: pytest.FixtureRequest) -> Recorder:
    """The recorder of this test's observations."""
    spec = graded_spec(request.node)
    if spec is None:
        raise RuntimeError("`rec` is only for @graded tests")
    return request.config.stash[RECORDING_PLUGIN].recorder_for(spec, request.node)
