"""The golden store, typed: what `make goldens` writes and the trusted parent alone reads.

tests/<a>/goldens/<visibility>.json, a store per visibility (public ships to students; hidden
never leaves the trusted parent):
  {"assignment", "visibility", "cold_seconds",
   "tests": {id: {"points", "timeout", "file", "task", "task_title", "seconds", "fixed",
                  "observations": {name: {"kind", "atol", "rtol", "check", "expected"}}}},
   "mutants": {name: {"hint", "values": {id: {obs: value}}, "fails": [id, ...],
                      "raises": {id: {"kind", "at", "recorded": [obs, ...]}},
                      "tags": {id: {obs: tag}}}},
   "draw_secret" (hidden only), "origin": {"torch", "numpy", "cpu_capability", "threads",
   "kernels", "machine", "cpu"}}
tests/<a>/inputs/<visibility>.json (enters the sandbox): {id: encoded cases}
These are the published (and stored hidden) inputs: `check` judges on them, and hints compare
a student's values on them with the mutants'. A grading judges on inputs drawn for it alone
(grading/draws.py, keyed by `draw_secret`); a test marked `fixed` (its inputs or its expected
values are the same on every draw: a worked example, a verdict) carries no points there.

`origin` says what made the values (autograder/authoring/origin.py): the numeric libraries, the
CPU capability and thread count torch ran with, the machine; stores written before it have none
({}). Values from another origin compare within float_policy's allowance.

`seconds` (the reference's slowest measured run of the test) and `cold_seconds` (the one-off
costs any test may pay first) size the per-test limits (autograder/backends/timeouts.py); stores written
before they existed lack them (None: the test keeps its explicit or default limit).

Values (`expected`, mutant values) stay encoded plain data (harness.plaindata); `compare`
decodes them. The derived views every stage needs — the run plan, per-test timeouts, the
mutant values that may explain a wrong observation — are computed here and nowhere else.

A process reads each file once while it is unchanged (`load_store` and `load_inputs` keep the
parsed result keyed by the file's inode, size and mtime, and the test files' for the titles):
bulk, demo and the self-test load the same stores for every submission. What they return is
shared: callers read it and never change it (values are decoded into new objects).
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ..assignments import VISIBILITIES, Assignment, Visibility
from .tasks import whole_task_titles


class StoreError(Exception):
    """A golden store is missing or malformed."""


@dataclass(frozen=True)
class ObservationSpec:
    """One recorded value a test must reproduce: `kind` exact | close | check."""

    kind: str
    atol: float = 0.0
    rtol: float = 0.0
    check: str | None = None
    expected: Any = None  # encoded plain data


@dataclass(frozen=True)
class TestSpec:
    id: str
    points: float
    timeout: float | None
    file: str
    observations: dict[str, ObservationSpec]
    task: int | None = None  # the handout's task number (autograder/grading/tasks.py); None: unknown
    task_title: str = ""
    seconds: float | None = None  # the reference's slowest measured run (timeouts.py)
    # the same inputs or expected values on every draw: learned once, replayed anywhere, so it
    # carries no points in a grading (grading/draws.py); `check` still counts it
    fixed: bool = False
    # False: the limit stays `timeout` (harness.graded's measured=False; timeouts.py)
    measured: bool = True


@dataclass(frozen=True)
class MutantValues:
    """A mutant's wrong values per test and observation (only values that fail the golden),
    every test it fails, where it raised, and the failure tags of named checks it fails.

    `raises[test]` = {"kind": the raised exception's first builtin class, "at": the first
    observation (in the test's recording order) it did not record, "recorded": the observations
    it recorded before raising}; `tags[test][obs]` = the tag its value got from the named
    check (docs/WRITING_TESTS.md, "Hints"); `unkept[test]` = the observations whose wrong value
    was too large to keep (the mutant fails them; hints know it by `digests` only). Stores
    written before raise sites existed have none (`has_raises` False: regenerate them)."""

    name: str
    hint: str
    values: dict[str, dict[str, Any]] = field(default_factory=dict)
    fails: tuple[str, ...] = ()
    raises: dict[str, dict[str, Any]] = field(default_factory=dict)
    tags: dict[str, dict[str, str]] = field(default_factory=dict)
    has_raises: bool = True
    unkept: dict[str, list[str]] = field(default_factory=dict)
    # digests[test][obs]: hints.value_digest of an unkept value (matched bit for bit)
    digests: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class GoldenStore:
    assignment: str
    visibility: Visibility
    tests: dict[str, TestSpec]
    mutants: dict[str, MutantValues]
    cold_seconds: float | None = None  # one-off costs any of its tests may pay (timeouts.py)
    # the hidden store only: the key of every grading's draw (grading/draws.py); instructor-only,
    # like the store itself, and kept by a regeneration
    draw_secret: str = ""
    origin: dict = field(default_factory=dict)  # what made the values (authoring/origin.py)

    def __post_init__(self) -> None:
        object.__setattr__(self, "visibility", Visibility(self.visibility))

    @classmethod
    def from_dict(cls, data: dict) -> GoldenStore:
        try:
            tests = {tid: TestSpec(tid, float(t["points"]), t["timeout"], t["file"],
                                   {name: ObservationSpec(**o)
                                    for name, o in t["observations"].items()},
                                   t.get("task"), t.get("task_title", ""),
                                   _seconds(t.get("seconds")), t.get("fixed") is True,
                                   t.get("measured") is not False)
                     for tid, t in data["tests"].items()}
            mutants = {name: MutantValues(name, m["hint"], m.get("values", {}),
                                          tuple(m.get("fails", ())), m.get("raises", {}),
                                          m.get("tags", {}), "raises" in m,
                                          m.get("unkept", {}), m.get("digests", {}))
                       for name, m in data.get("mutants", {}).items()}
            origin = data.get("origin") or {}
            if not isinstance(origin, dict):
                raise TypeError(f"origin is {type(origin).__name__}, not an object")
            return cls(data["assignment"], data["visibility"], tests, mutants,
                       _seconds(data.get("cold_seconds")), str(data.get("draw_secret", "")),
                       origin)
        except (KeyError, TypeError, ValueError) as e:
            raise StoreError(f"malformed golden store ({type(e).__name__}: {e})") from None

    def to_dict(self) -> dict:
        tests = {}
        for tid, t in self.tests.items():
            tests[tid] = {"points": t.points, "timeout": t.timeout, "file": t.file,
                          "observations": {n: asdict(o) for n, o in t.observations.items()},
                          "task": t.task, "task_title": t.task_title, "seconds": t.seconds}
            if t.fixed:
                tests[tid]["fixed"] = True
            if not t.measured:
                tests[tid]["measured"] = False
        mutants = {name: {"hint": m.hint, "values": m.values, "fails": list(m.fails),
                          "raises": m.raises, "tags": m.tags,
                          **({"unkept": m.unkept} if m.unkept else {}),
                          **({"digests": m.digests} if m.digests else {})}
                   for name, m in self.mutants.items()}
        data = {"assignment": self.assignment, "visibility": self.visibility, "tests": tests,
                "mutants": mutants, "cold_seconds": self.cold_seconds}
        if self.draw_secret:
            data["draw_secret"] = self.draw_secret
        if self.origin:
            data["origin"] = self.origin
        return data

    def dump(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":")) + "\n")


def _seconds(value: object) -> float | None:
    """A stored timing: a finite number >= 0, else None (never measured)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0 <= value < float("inf") else None


def load_store(assignment: Assignment, store: Visibility, base: Path | None = None) -> GoldenStore:
    """The golden store of visibility `store`; shared, never to be changed."""
    path = assignment.goldens_path(store, base)
    files = tuple(f for v in VISIBILITIES for f in assignment.test_files(v))
    try:
        key = (_identity(path), *map(_identity, files))
    except FileNotFoundError:
        raise StoreError(f"no goldens at {path}: run `make goldens`") from None
    return _parsed_store(path, files, key)


@functools.lru_cache(maxsize=32)
def _parsed_store(path: Path, files: tuple[Path, ...], key: tuple) -> GoldenStore:
    """`path`'s store with the whole task titles from the test `files` (the store keeps them
    cut to MAX_TITLE); once per `key` (the files' identities)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise StoreError(f"{path}: not JSON ({e})") from None
    store = GoldenStore.from_dict(data)
    titles = whole_task_titles(list(files))
    return replace(store, tests={tid: replace(t, task_title=titles.get(t.task, t.task_title))
                                 for tid, t in store.tests.items()})


def _identity(path: Path) -> tuple:
    """What changes when the file does: (path, device, inode, size, mtime and ctime in ns)."""
    st = path.stat()
    return str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def load_stores(assignment: Assignment, visibilities: tuple[Visibility, ...] = VISIBILITIES,
                base: Path | None = None) -> dict[Visibility, GoldenStore]:
    return {v: load_store(assignment, v, base) for v in visibilities}


def reference_seconds(assignment: Assignment, visibilities: tuple[str, ...] = ("public",)
                      ) -> float:
    """The reference's stored test seconds over `visibilities` (0 where a store is missing or
    unreadable): what orders work longest first."""
    try:
        return sum(t.seconds or 0.0 for v in visibilities
                   for t in load_store(assignment, v).tests.values())
    except (StoreError, OSError, ValueError, KeyError, TypeError):
        return 0.0


def load_inputs(assignment: Assignment, store: str, base: Path | None = None) -> dict:
    """{test id: encoded cases} of `store` (empty when the assignment stores none); shared,
    never to be changed."""
    path = assignment.inputs_path(store, base)
    try:
        key = _identity(path)
    except FileNotFoundError:
        return {}
    return _parsed_inputs(path, key)


@functools.lru_cache(maxsize=32)
def _parsed_inputs(path: Path, key: tuple) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))
