"""The golden store, typed: what `make goldens` writes and the trusted parent alone reads.

tests/<a>/goldens/<store>.json, a store per visibility plus the public tests' graded input set
(public ships to students; hidden and graded never leave the parent):
  {"assignment", "visibility", "cold_seconds",
   "tests": {id: {"points", "timeout", "file", "task", "task_title", "seconds",
                  "observations": {name: {"kind", "atol", "rtol", "check", "expected"}}}},
   "mutants": {name: {"hint", "values": {id: {obs: value}}, "fails": [id, ...],
                      "raises": {id: {"kind", "at", "recorded": [obs, ...]}},
                      "tags": {id: {obs: tag}}}},
   "seed_salt" (graded only)}
tests/<a>/inputs/<store>.json (enters the sandbox): {id: encoded cases}
The graded store (`assignments.GRADED_INPUTS`) holds the public tests, visibility "public", with
the expected values, mutant values and points for inputs drawn from its salted seeds; a test
whose inputs do not depend on the seed (a worked example) carries no points there.

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

from ..assignments import VISIBILITIES, Assignment
from .tasks import full_titles


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


@dataclass(frozen=True)
class MutantValues:
    """A mutant's wrong values per test and observation (only values that fail the golden),
    every test it fails, where it raised, and the failure tags of named checks it fails.

    `raises[test]` = {"kind": the raised exception's first builtin class, "at": the first
    observation (in the test's recording order) it did not record, "recorded": the observations
    it recorded before raising}; `tags[test][obs]` = the tag its value got from the named
    check (docs/WRITING_TESTS.md, "Hints"); `unkept[test]` = the observations whose wrong value
    was too large to keep (the mutant fails them; its value is unknown to hints). Stores
    written before raise sites existed have none (`has_raises` False: regenerate them)."""

    name: str
    hint: str
    values: dict[str, dict[str, Any]] = field(default_factory=dict)
    fails: tuple[str, ...] = ()
    raises: dict[str, dict[str, Any]] = field(default_factory=dict)
    tags: dict[str, dict[str, str]] = field(default_factory=dict)
    has_raises: bool = True
    unkept: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class GoldenStore:
    assignment: str
    visibility: str
    tests: dict[str, TestSpec]
    mutants: dict[str, MutantValues]
    cold_seconds: float | None = None  # one-off costs any of its tests may pay (timeouts.py)
    # the graded input set's store only: the salt its inputs' seeds were drawn with (kept so
    # that a regeneration reproduces them; instructor-only, like the store itself)
    seed_salt: str = ""

    @classmethod
    def from_dict(cls, data: dict) -> GoldenStore:
        try:
            tests = {tid: TestSpec(tid, float(t["points"]), t["timeout"], t["file"],
                                   {name: ObservationSpec(**o)
                                    for name, o in t["observations"].items()},
                                   t.get("task"), t.get("task_title", ""),
                                   _seconds(t.get("seconds")))
                     for tid, t in data["tests"].items()}
            mutants = {name: MutantValues(name, m["hint"], m.get("values", {}),
                                          tuple(m.get("fails", ())), m.get("raises", {}),
                                          m.get("tags", {}), "raises" in m,
                                          m.get("unkept", {}))
                       for name, m in data.get("mutants", {}).items()}
            return cls(data["assignment"], data["visibility"], tests, mutants,
                       _seconds(data.get("cold_seconds")), str(data.get("seed_salt", "")))
        except (KeyError, TypeError, ValueError) as e:
            raise StoreError(f"malformed golden store ({type(e).__name__}: {e})") from None

    def to_dict(self) -> dict:
        tests = {}
        for tid, t in self.tests.items():
            tests[tid] = {"points": t.points, "timeout": t.timeout, "file": t.file,
                          "observations": {n: asdict(o) for n, o in t.observations.items()},
                          "task": t.task, "task_title": t.task_title, "seconds": t.seconds}
        mutants = {name: {"hint": m.hint, "values": m.values, "fails": list(m.fails),
                          "raises": m.raises, "tags": m.tags,
                          **({"unkept": m.unkept} if m.unkept else {})}
                   for name, m in self.mutants.items()}
        data = {"assignment": self.assignment, "visibility": self.visibility, "tests": tests,
                "mutants": mutants, "cold_seconds": self.cold_seconds}
        if self.seed_salt:
            data["seed_salt"] = self.seed_salt
        return data

    def dump(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":")) + "\n")

    def mutant_values(self, test_id: str, observation: str) -> list[tuple[str, Any]]:
        """(hint, value) of every mutant whose value for this observation fails the golden."""
        return [(m.hint, m.values[test_id][observation]) for m in self.mutants.values()
                if observation in m.values.get(test_id, {})]

    def mutant_tags(self, test_id: str, observation: str) -> list[tuple[str, str]]:
        """(hint, tag) of every mutant whose value for this named check got a failure tag."""
        return [(m.hint, m.tags[test_id][observation]) for m in self.mutants.values()
                if observation in m.tags.get(test_id, {})]

    def mutants_failing(self, test_id: str) -> list[str]:
        return [m.name for m in self.mutants.values() if test_id in m.fails]


def _seconds(value: object) -> float | None:
    """A stored timing: a finite number >= 0, else None (never measured)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0 <= value < float("inf") else None


def load_store(assignment: Assignment, store: str, base: Path | None = None) -> GoldenStore:
    """The golden store `store` (a visibility or GRADED_INPUTS); shared, never to be changed."""
    path = assignment.goldens_path(store, base)
    files = (*assignment.test_files("public"), *assignment.test_files("hidden"))
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
    titles = full_titles(list(files))
    return replace(store, tests={tid: replace(t, task_title=titles.get(t.task, t.task_title))
                                 for tid, t in store.tests.items()})


def _identity(path: Path) -> tuple:
    """What changes when the file does: (path, device, inode, size, mtime and ctime in ns)."""
    st = path.stat()
    return str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def load_stores(assignment: Assignment, visibilities: tuple[str, ...] = VISIBILITIES,
                base: Path | None = None) -> dict[str, GoldenStore]:
    return {v: load_store(assignment, v, base) for v in visibilities}


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
