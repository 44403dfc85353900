"""The backend seam: what a backend receives (`RunRequest`), what it returns (`RunResult` of
`TestRecord`s), where it runs (`Placement`), and the protocols a backend and its boxes
implement. Everything here is plain data: `to_json()`/`from_json()` round-trip, so a
Kubernetes or Slurm backend can ship a request to another machine and its result back.

A `RunResult` holds what a child *claimed*; it is judged by the trusted parent
(grading/judge) exactly as for the host backend. Imported by the runner, every backend and the
grading/authoring code that builds requests; imports assignments and sandbox of the engine, and
causes and timeouts beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from ..assignments import VISIBILITIES, Assignment, Visibility
from ..sandbox import Capabilities, SandboxPolicy
from .causes import Reason
from .timeouts import derived_timeout


class Status(StrEnum):
    """How a test's run ended, as the parent saw it (a StrEnum: the same string in JSON)."""

    ENDED = "ended"  # the child reported its end (its `Outcome` says passed or failed)
    TIMEOUT = "timeout"  # the parent stopped it at its time limit
    CRASHED = "crashed"  # its child died during it (or the run's deadline stopped it)
    NOT_RUN = "not_run"  # never started: its file did not load, or the child stopped before it
    REFUSED = "refused"  # not started: the box cannot keep the hidden goldens from the child


class Outcome(StrEnum):
    """What an ended test's child reported (pytest's own outcome of the test)."""

    PASSED = "passed"
    FAILED = "failed"


class RunPath(StrEnum):
    """How a run's children started."""

    WARM = "warm"  # forks of a zygote entering the sandbox (backends/zygote.py)
    COLD = "cold"  # a fresh interpreter per child
    MIXED = "mixed"  # some of each: the zygote refused some


class RunMode(StrEnum):
    """What a run is for: `GEN` runs trusted code on generated inputs (golden generation, a
    grading's reference on its draw), `REPLAY` a submission on stored inputs."""

    GEN = "gen"
    REPLAY = "replay"


MODES = tuple(RunMode)


@dataclass(frozen=True)
class TestPlan:
    """What a graded run executes: test ids in order, each one's visibility and timeout.
    `timeouts` holds the explicit `@graded(timeout=)` limits; `measured` the reference's time
    per test (its slowest run plus its store's cold pool) that sizes the derived limits
    (timeouts.py; absent: never measured)."""

    ids: tuple[str, ...]
    visibility_of: dict[str, Visibility]
    timeouts: dict[str, float]
    file_of: dict[str, str] = field(default_factory=dict)  # test id -> its test file's name
    measured: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "visibility_of",
                           {i: Visibility(v) for i, v in self.visibility_of.items()})

    @classmethod
    def from_stores(cls, stores: Mapping[str, Any]) -> TestPlan:
        """The plan of golden stores (store.GoldenStore by visibility), in their order."""
        ids = tuple(t for s in stores.values() for t in s.tests)
        return cls(ids, {t: s.visibility for s in stores.values() for t in s.tests},
                   {t: spec.timeout for s in stores.values()
                    for t, spec in s.tests.items() if spec.timeout},
                   {t: spec.file for s in stores.values() for t, spec in s.tests.items()},
                   {t: spec.seconds + (s.cold_seconds or 0.0) for s in stores.values()
                    for t, spec in s.tests.items()
                    if spec.seconds is not None and spec.measured})

    def only(self, ids: set[str]) -> TestPlan:
        """The same plan restricted to `ids` (order kept)."""
        return TestPlan(tuple(i for i in self.ids if i in ids),
                        {i: v for i, v in self.visibility_of.items() if i in ids},
                        {i: t for i, t in self.timeouts.items() if i in ids},
                        {i: f for i, f in self.file_of.items() if i in ids},
                        {i: m for i, m in self.measured.items() if i in ids})


class BackendError(Exception):
    """A backend is unknown or cannot run on this machine."""


@dataclass(frozen=True)
class Placement:
    """Where a run's children execute: the `backend` (a name in `backends.REGISTRY`) and, for
    container backends, the GPUs to pass through (`gpus`: "all" or a count)."""

    backend: str = "host"
    gpus: str | None = None

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Placement:
        return cls(str(data.get("backend", "host")), _opt_str(data.get("gpus")))


@dataclass
class TestRecord:
    """What the child reported for one test."""

    id: str
    status: Status = Status.NOT_RUN
    outcome: Outcome | None = None  # when ended
    error: str | None = None  # the child's text of what the test raised (when ended)
    error_type: str | None = None
    error_kind: str | None = None  # the raised class's first builtin class (compare: hints)
    obs: list = field(default_factory=list)
    meta: dict | None = None
    inputs: object = None
    where: dict | None = None  # where it raised: {"function", "file", "line", "student"}
    # the child's own clock from its start event to its end event: trust it only where the
    # child runs the course's code (golden time: timeouts.py), never to grade
    seconds: float | None = None
    # why it failed beyond what it raised: a timeout, a crash, a refusal, a forbidden import
    cause: Reason | None = None
    # the end of what it printed (harness/output.py), for a child whose output may be shown
    output: str | None = None
    # the types the contract's functions returned during it (harness/returned.py), bounded
    returned: dict | None = None

    def __post_init__(self) -> None:
        self.status = Status(self.status)
        self.outcome = None if self.outcome is None else Outcome(self.outcome)

    @property
    def passed(self) -> bool:
        """It ran to its end and its child reported it passed."""
        return self.status == Status.ENDED and self.outcome == Outcome.PASSED

    @property
    def failed(self) -> bool:
        """It ran to its end and its child reported it failed (it raised)."""
        return self.status == Status.ENDED and self.outcome == Outcome.FAILED

    def to_json(self) -> dict:
        data = asdict(self)
        data["cause"] = self.cause.to_json() if self.cause is not None else None
        return data

    @classmethod
    def from_json(cls, data: dict) -> TestRecord:
        known = {f.name for f in fields(cls)} - {"cause"}
        cause = data.get("cause")
        return cls(**{k: v for k, v in data.items() if k in known},
                   cause=Reason.from_json(cause) if isinstance(cause, dict) else None)


@dataclass
class RunResult:
    records: dict[str, TestRecord]
    collect_errors: list[Reason]  # what went wrong beside the tests (grading/cause_text words it)
    stderr_tail: str
    restarts: int
    wall_s: float
    path: RunPath = RunPath.COLD  # how its children started
    package_error: bool = False  # a child said the package itself does not import
    # what to tell the student that stopped no test (a child printed past its budget)
    notes: list[Reason] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.path = RunPath(self.path)

    def to_json(self) -> dict:
        return {"records": {k: r.to_json() for k, r in self.records.items()},
                "collect_errors": [e.to_json() for e in self.collect_errors],
                "stderr_tail": self.stderr_tail,
                "restarts": self.restarts, "wall_s": self.wall_s, "path": self.path,
                "package_error": self.package_error,
                "notes": [n.to_json() for n in self.notes]}

    @classmethod
    def from_json(cls, data: dict) -> RunResult:
        return cls({k: TestRecord.from_json(r) for k, r in data["records"].items()},
                   [Reason.from_json(e) for e in data["collect_errors"]], str(data["stderr_tail"]),
                   int(data["restarts"]), float(data["wall_s"]), RunPath(data.get("path", "cold")),
                   data.get("package_error") is True,
                   [Reason.from_json(n) for n in data.get("notes", [])])

    @classmethod
    def joined(cls, results: list[RunResult]) -> RunResult:
        """Several runs of one submission, in order, as one (records, errors, restarts and
        times together; the first shown stderr tail)."""
        paths = {r.path for r in results}
        return cls({k: v for r in results for k, v in r.records.items()},
                   [e for r in results for e in r.collect_errors],
                   next((r.stderr_tail for r in results if r.stderr_tail), ""),
                   sum(r.restarts for r in results), sum(r.wall_s for r in results),
                   paths.pop() if len(paths) == 1 else RunPath.MIXED,
                   any(r.package_error for r in results),
                   [n for r in results for n in r.notes])


@dataclass(frozen=True)
class RunRequest:
    """One graded (or golden-generating) run of an assignment's tests on the package found in
    `impl_root`. `mode` is 'gen' (trusted solutions: inputs from the generators, `plan` None:
    every test collected) or 'replay' (stored inputs, the tests of `plan`). `gpus`: what the
    placement passes through (container backends)."""

    assignment: Assignment
    impl_root: Path
    mode: RunMode
    plan: TestPlan | None
    policy: SandboxPolicy
    default_timeout: float | None = None  # per test; default: the assignment's
    run_timeout: float | None = None  # whole run; default: the assignment's
    inputs_base: Path | None = None  # where inputs/ is read or (gen) written
    keep: bool = False  # keep run folders (debugging)
    timeout_scale: float = 1.0  # every limit times this (golden generation's mutant runs)
    trusted: bool = False  # the course's own code (solutions, mutants): no hidden refusal
    gpus: str | None = None
    reverse: bool = False  # run the tests in reverse order (golden time: timing the reference)
    # the public tests run on a grading's draw (inputs_base, grading/draws.py) instead of the
    # published inputs, and what their child prints or raises is redacted as a hidden one's
    graded_public: bool = False
    seed_salt: str = ""  # gen mode: generate a draw's inputs from this salt (grading/draws.py)
    slowdown: float | None = None  # the load factor, frozen when the run starts (timeouts.py)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"run mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        object.__setattr__(self, "mode", RunMode(self.mode))

    @property
    def redacted(self) -> tuple[Visibility, ...]:
        """The visibilities whose child's output never reaches the student: hidden tests, and
        public tests run on the graded input set (a graded replay only)."""
        if self.mode != RunMode.REPLAY:
            return ()
        return tuple(v for v in self.visibilities if v == Visibility.HIDDEN or self.graded_public)

    @property
    def visibilities(self) -> tuple[Visibility, ...]:
        if self.plan is None:
            return VISIBILITIES
        present = set(self.plan.visibility_of.values())
        return tuple(v for v in VISIBILITIES if v in present)

    def test_timeout(self, test_id: str | None, cold_start: bool = False) -> float:
        """A test's wall limit: its explicit `@graded(timeout=)` or the default, shortened to
        what the reference's measured time allows (timeouts.py) when the plan has it and the
        assignment uses measured timeouts; None: the default. Stretched by the run's frozen
        `slowdown` (None: a quiet machine), never by the load now. Times `timeout_scale`.
        `cold_start`: a test of a child that started as a fresh interpreter, which pays the
        imports a warm child's zygote made once, each where it first needs a module (the
        reference is timed warm): not shortened (the cold chain is the fallback)."""
        default = self.default_timeout or self.assignment.test_timeout
        if self.plan is None or test_id is None:
            return default * self.timeout_scale
        cap = self.plan.timeouts.get(test_id) or default
        measured = self.plan.measured.get(test_id) if self.assignment.measured_timeouts \
            and not cold_start else None
        return derived_timeout(measured, cap, self.slowdown or 1.0) * self.timeout_scale

    def run_limit(self) -> float:
        """The whole run's wall-clock limit in seconds."""
        return (self.run_timeout or self.assignment.run_timeout) * self.timeout_scale

    def to_json(self) -> dict:
        """Plain JSON data (paths as strings); `from_json` rebuilds an equal request."""
        a, p, plan = self.assignment, self.policy, self.plan
        return {
            "assignment": {**asdict(a), "forbidden": list(a.forbidden), "root": str(a.root)},
            "impl_root": str(self.impl_root), "mode": self.mode,
            "plan": None if plan is None else {**asdict(plan), "ids": list(plan.ids)},
            "policy": p.to_json(),
            "default_timeout": self.default_timeout, "run_timeout": self.run_timeout,
            "inputs_base": None if self.inputs_base is None else str(self.inputs_base),
            "keep": self.keep, "timeout_scale": self.timeout_scale, "trusted": self.trusted,
            "gpus": self.gpus, "reverse": self.reverse, "graded_public": self.graded_public,
            "seed_salt": self.seed_salt, "slowdown": self.slowdown,
        }

    @classmethod
    def from_json(cls, data: dict) -> RunRequest:
        a, p, plan = data["assignment"], data["policy"], data["plan"]
        assignment = Assignment(**{**a, "forbidden": tuple(a["forbidden"]),
                                   "returns": tuple(tuple(r) for r in a.get("returns", ())),
                                   "root": Path(a["root"])})
        policy = SandboxPolicy.from_json(p)
        return cls(assignment, Path(data["impl_root"]), data["mode"],
                   None if plan is None else TestPlan(**{**plan, "ids": tuple(plan["ids"])}),
                   policy, data["default_timeout"], data["run_timeout"],
                   None if data["inputs_base"] is None else Path(data["inputs_base"]),
                   bool(data["keep"]), float(data["timeout_scale"]), bool(data["trusted"]),
                   _opt_str(data.get("gpus")), bool(data.get("reverse", False)),
                   bool(data.get("graded_public", False)), str(data.get("seed_salt", "")),
                   _opt_float(data.get("slowdown")))


def _opt_str(value: object) -> str | None:
    return None if value is None else str(value)


def _opt_float(value: object) -> float | None:
    return None if value is None else float(value)


class Child(Protocol):
    """A started child: `poll()` is None while it runs; `kill()` stops it and everything it
    started, and waits for that."""

    def poll(self) -> int | None: ...

    def kill(self) -> None: ...


class ChildBox(Protocol):
    """Where one run folder's children run (the host sandbox, a container, ...). Its factory
    (the class) also answers `hidden_refusal(request, caps)`: why this box cannot keep the
    hidden goldens unreadable to the child (None: it can)."""

    def new_output_file(self, path: Path) -> Path: ...

    def start(self, boot: Path, config: Path, writable: list[Path], forbidden: list[str],
              stdout: Path, stderr: Path) -> Child: ...

    def after_child(self) -> None: ...

    def close(self) -> None: ...


BoxFactory = Callable[[Path, RunRequest, Capabilities], ChildBox]


class Backend(Protocol):
    """A backend (`BACKEND` in autograder/backends/<name>.py)."""

    name: str

    def problem(self) -> str | None:
        """Why this backend cannot run here (None: it can)."""

    def run(self, request: RunRequest) -> RunResult:
        """Run the request's tests; never raises for anything submitted code does."""
