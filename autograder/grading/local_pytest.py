"""Local mode: `pytest tests/<assignment>/public --impl starter` runs graded tests directly,
comparing each observation at once with the public goldens, with the parent's checker.

A pytest plugin (tests/conftest.py loads it). It registers the harness's recording plugin with
a local checker; it runs no sandbox, so use it on your own code only.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ..assignments import VISIBILITIES, Assignment, discover, load
from ..backends.run_folder import package_names
from ..harness import plugin as harness_plugin
from ..harness.missing_names import PackageCompleter
from ..harness.plaindata import decode
from .compare import Observed, decode_observed, judge_observation
from .hints import ranked_hints
from .store import GoldenStore, load_store


@functools.cache
def _local_stores(folder: Path, visibility: str) -> tuple[Assignment, GoldenStore, dict]:
    """(assignment, goldens, inputs), read once per local pytest session."""
    assignment = load(folder.name, folder.parent.parent)
    inputs = json.loads(assignment.inputs_path(visibility).read_text(encoding="utf-8"))
    return assignment, load_store(assignment, visibility), inputs


def judge_local(folder: Path, visibility: str, test_id: str, obs: dict,
                passed: tuple[str, ...] = ()) -> str | None:
    """Compare one observation with the stored goldens: None, or the message with hints.
    `passed`: the test's observations recorded (and passed) before it; the ones not yet
    recorded neither confirm nor contradict a mutant (hints.mutant_fits' `pending`)."""
    assignment, store, inputs_store = _local_stores(folder, visibility)
    test = store.tests.get(test_id)
    if test is None or obs["name"] not in test.observations:
        return f"no golden for {test_id}/{obs['name']}: run `make goldens`"
    spec = test.observations[obs["name"]]
    inputs = decode(inputs_store[test_id]) if test_id in inputs_store else None
    observed = decode_observed(obs["value"])
    message = judge_observation(spec, observed, inputs, assignment.checks, obs["name"])
    if message is None:
        return None
    seen = {name: Observed() for name in passed} | {obs["name"]: observed}
    pending = frozenset(test.observations) - set(seen)
    hints = ranked_hints(test, seen, {obs["name"]}, store.mutants.values(), inputs,
                         assignment.checks, pending=pending)
    return f"{obs['name']}: {message}" + "".join(f"\nHint: {h}" for h in hints)


def local_checker(test_id: str, folder: Path, visibility: str) -> Callable[[dict], None]:
    passed: list[str] = []

    def on_record(obs: dict) -> None:
        message = judge_local(folder, visibility, test_id, obs, tuple(passed))
        if message:
            raise AssertionError(message)
        passed.append(obs["name"])

    return on_record


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--impl", default=None,
                     help="folder holding the implementation package (local mode)")


def pytest_configure(config: pytest.Config) -> None:
    impl = config.getoption("--impl", default=None)
    if impl:
        sys.path.insert(0, str(Path(impl).resolve()))
    # as in the graded child: a name the tests import that the package lacks fails only the
    # tests that use it (harness/missing_names.py), for every assignment of the course
    sys.meta_path.insert(0, PackageCompleter({
        a.package: functools.partial(package_names, a, VISIBILITIES) for a in discover()}))
    config.pluginmanager.register(harness_plugin, "graded-fixtures")
    config.pluginmanager.register(
        harness_plugin.RecordingPlugin(None, local_checker, str(Path(impl).resolve()) if impl else None),
        "graded-run")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A graded test's wall timeout (its `@graded(timeout=)`, else the assignment's) applies
    here too, through pytest-timeout: a hang fails that test instead of stalling the run."""
    for item in items:
        spec = harness_plugin.graded_spec(item)
        if spec is None or item.get_closest_marker("timeout") is not None:
            continue
        folder = harness_plugin.assignment_dir(Path(str(item.path)))
        limit = spec.timeout or load(folder.name, folder.parent.parent).test_timeout
        item.add_marker(pytest.mark.timeout(limit))


def pytest_collectstart(collector: pytest.Collector) -> None:
    """A graded test file can import its assignment's `common` module."""
    path = getattr(collector, "path", None)
    if path is None or path.parent.name not in VISIBILITIES:
        return
    folder = harness_plugin.assignment_dir(Path(path))
    if not (folder / "common.py").exists():
        return
    loaded = sys.modules.get("common")
    if loaded is not None and Path(getattr(loaded, "__file__", "")).parent != folder:
        del sys.modules["common"]  # another assignment's; its test modules keep theirs
    if str(folder) in sys.path:
        sys.path.remove(str(folder))
    sys.path.insert(0, str(folder))
