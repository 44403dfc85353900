"""pytest plugin that runs graded tests and records what they observed.

Modes (set by the process that starts pytest):
- ``gen``: golden generation on trusted code: inputs come from each test's ``cases(rng)``;
  the events carry inputs, metadata and observations.
- ``replay``: a graded run: inputs come from the stored inputs file; events carry observations.
- local (no CONFIG, pytest run directly via tests/conftest.py): stored public inputs, and each
  observation is compared at once with the public goldens (the parent's checker code).

Events are JSON lines appended to CONFIG["events"]: start, end, collect_error, done.
"""

from __future__ import annotations

import json
import sys
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from . import GradedSpec, Recorder
from .plaindata import decode, encode

CONFIG: dict | None = None
MAX_ERROR_CHARS = 2000

_recorders: dict[str, Recorder] = {}
_inputs_cache: dict[str, dict] = {}
_generated: dict[str, Any] = {}
_errors: dict[str, str] = {}
_error_types: dict[str, str] = {}


def case_seed(assignment: str, test_id: str) -> int:
    """Seed of a test's input generator: stable across machines and runs."""
    return zlib.crc32(f"{assignment}/{test_id}".encode())


def _emit(event: dict) -> None:
    if CONFIG is None:
        return
    with open(CONFIG["events"], "a", encoding="utf-8") as f:
        f.write(json.dumps(event, allow_nan=False) + "\n")


def _spec(item: pytest.Item) -> GradedSpec | None:
    return getattr(getattr(item, "function", None), "_graded", None)


def _visibility(path: Path) -> str:
    return "hidden" if path.parent.name == "hidden" else "public"


def _assignment_dir(path: Path) -> Path:
    return path.parent.parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--impl", default=None,
                     help="folder holding the implementation package (local mode)")


def pytest_configure(config: pytest.Config) -> None:
    impl = config.getoption("--impl", default=None)
    if CONFIG is None and impl:
        sys.path.insert(0, str(Path(impl).resolve()))


def pytest_collectstart(collector: pytest.Collector) -> None:
    """Local mode: a graded test file can import its assignment's `common` module."""
    path = getattr(collector, "path", None)
    if CONFIG is None and path is not None and path.parent.name in ("public", "hidden"):
        folder = _assignment_dir(Path(path))
        if not (folder / "common.py").exists():
            return
        loaded = sys.modules.get("common")
        if loaded is not None and Path(getattr(loaded, "__file__", "")).parent != folder:
            del sys.modules["common"]  # another assignment's; its test modules keep theirs
        if str(folder) in sys.path:
            sys.path.remove(str(folder))
        sys.path.insert(0, str(folder))


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    plan = None if CONFIG is None else CONFIG.get("plan")
    keep, seen = [], set()
    for item in items:
        spec = _spec(item)
        if spec is not None and spec.id in seen:
            raise pytest.UsageError(f"two graded tests share the id {spec.id!r}")
        if spec is not None:
            seen.add(spec.id)
        if spec is None:
            if CONFIG is None:
                keep.append(item)  # local mode: ordinary tests run as usual
            continue
        if hasattr(item, "callspec"):
            raise pytest.UsageError(f"graded test {spec.id} is parametrized: loop over cases")
        if plan is None or spec.id in plan:
            keep.append(item)
    deselected = [i for i in items if i not in keep]
    if deselected and CONFIG is not None:
        config.hook.pytest_deselected(items=deselected)
    items[:] = keep


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        _emit({"ev": "collect_error", "file": Path(str(report.fspath)).name,
               "error": str(report.longreprtext)[-MAX_ERROR_CHARS:]})


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    spec = _spec(item)
    if spec is not None:
        _emit({"ev": "start", "id": spec.id})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    spec = _spec(item)
    if spec is None:
        return
    if report.failed and spec.id not in _errors:
        excinfo = call.excinfo
        if excinfo is not None:
            where = ""
            tb = excinfo.traceback
            if len(tb):
                entry = tb[-1]
                where = f" at {Path(str(entry.path)).name}:{entry.lineno + 1}"
            _errors[spec.id] = (excinfo.exconly()[:MAX_ERROR_CHARS] + where)
            _error_types[spec.id] = excinfo.typename
        else:
            _errors[spec.id] = str(report.longreprtext)[-MAX_ERROR_CHARS:]
    if report.when == "teardown":
        _finish(item, spec)


def _finish(item: pytest.Item, spec: GradedSpec) -> None:
    rec = _recorders.pop(item.nodeid, None)
    event = {"ev": "end", "id": spec.id,
             "outcome": "failed" if spec.id in _errors else "passed",
             "error": _errors.get(spec.id), "error_type": _error_types.get(spec.id),
             "obs": rec.observations if rec else []}
    if CONFIG is not None and CONFIG["mode"] == "gen":
        path = Path(str(item.path))
        event["meta"] = {"points": spec.points, "timeout": spec.timeout,
                         "visibility": _visibility(path), "file": path.name}
        event["inputs"] = _generated.get(spec.id)
    _emit(event)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _emit({"ev": "done"})


def _load_inputs(path: Path) -> dict:
    key = str(path)
    if key not in _inputs_cache:
        _inputs_cache[key] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return _inputs_cache[key]


@pytest.fixture
def cases(request: pytest.FixtureRequest) -> Any:
    """The test's stored inputs (generated from its seed at golden time)."""
    spec = _spec(request.node)
    if spec is None or spec.cases is None:
        return None
    path = Path(str(request.node.path))
    if CONFIG is not None and CONFIG["mode"] == "gen":
        rng = np.random.default_rng(case_seed(CONFIG["assignment"], spec.id))
        data = encode(spec.cases(rng))
        _generated[spec.id] = data
        return decode(data)
    if CONFIG is not None:
        store = _load_inputs(Path(CONFIG["inputs"][_visibility(path)]))
    else:
        store = _load_inputs(_assignment_dir(path) / "inputs" / f"{_visibility(path)}.json")
    if spec.id not in store:
        raise RuntimeError(f"no stored inputs for {spec.id}: run `make goldens`")
    return decode(store[spec.id])


@pytest.fixture
def rec(request: pytest.FixtureRequest) -> Recorder:
    """The recorder of this test's observations."""
    spec = _spec(request.node)
    if spec is None:
        raise RuntimeError("`rec` is only for @graded tests")
    on_record = None
    if CONFIG is None:
        path = Path(str(request.node.path))
        on_record = _local_checker(spec.id, _assignment_dir(path), _visibility(path))
    recorder = Recorder(spec.id, on_record)
    _recorders[request.node.nodeid] = recorder
    return recorder


def _local_checker(test_id: str, assignment_dir: Path, visibility: str):
    """Local mode: compare each observation at once, with the parent's checker code."""
    from autograder.compare import judge_local  # trusted code; local mode runs no sandbox

    def on_record(obs: dict) -> None:
        message = judge_local(assignment_dir, visibility, test_id, obs)
        if message:
            raise AssertionError(message)

    return on_record
