"""Why a test or a run did not go as planned, as data: a `Cause` member and its fields (`Why`),
set where it happens (backends/runner.py from the child's events, grading/judge.py) and carried
in `TestRecord.cause` and `RunResult.collect_errors` (to_json/from_json round-trip). Text is made
from a `Why` only by grading/cause_text.py; nothing decides anything by reading that text.

The child (harness/, which imports nothing of the engine) reports the same facts as plain
fields of its events: a forbidden import's module (`forbidden`), the implementation's frame a
package import failed in (`import`). Imports nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum


class Cause(Enum):
    """What happened. At intake: FORBIDDEN_USE. Per test: FORBIDDEN_IMPORT (a test raised the blocker's ImportError),
    TEST_TIMEOUT, RUN_STOPPED (the run's deadline stopped the test), CRASHED, REFUSED,
    NOT_LOADED (its file did not collect), NOT_REACHED. Per run (collection errors):
    COLLECT_ERROR, PACKAGE_IMPORT, FORBIDDEN_IMPORT (the package imports a forbidden module),
    HIDDEN_COLLECT, START_FAILED, EXITED_EARLY, RUN_TIMEOUT, RESTARTS_EXCEEDED, OUTPUT_CUT
    (a redacted child's events or errors cut), ERRORS_CUT, EVENTS_CUT, REFUSED."""

    FORBIDDEN_IMPORT = "forbidden_import"
    FORBIDDEN_USE = "forbidden_use"  # found at intake, before anything runs (grading/intake.py)
    TEST_TIMEOUT = "test_timeout"
    RUN_STOPPED = "run_stopped"
    CRASHED = "crashed"
    REFUSED = "refused"
    NOT_LOADED = "not_loaded"
    NOT_REACHED = "not_reached"
    COLLECT_ERROR = "collect_error"
    PACKAGE_IMPORT = "package_import"
    HIDDEN_COLLECT = "hidden_collect"
    START_FAILED = "start_failed"
    EXITED_EARLY = "exited_early"
    RUN_TIMEOUT = "run_timeout"
    RESTARTS_EXCEEDED = "restarts_exceeded"
    OUTPUT_CUT = "output_cut"
    ERRORS_CUT = "errors_cut"
    EVENTS_CUT = "events_cut"


@dataclass(frozen=True)
class Why:
    """A cause and its fields (None: not known or not applicable). `file`/`line`/`function`:
    where (a hang's innermost implementation frame, the import that failed, the test file of a
    collection error); `module`: the forbidden module; `limit`: seconds (a test's or the run's)
    or a count's cap; `count`: how many; `label`: how a redacted folder's tests are named;
    `last`: the child's last stderr line or output; `status`: a crashed child's exit status
    (negative: the signal that ended it); `detail`: the child's own error text or a
    refusal's reason; `source`: the failing import's source line; `rule` and `verb`: the
    forbidden rule a use matched and how the code uses the name ("imports", "uses")."""

    cause: Cause
    module: str | None = None
    file: str | None = None
    line: int | None = None
    function: str | None = None
    limit: float | None = None
    count: int | None = None
    label: str | None = None
    last: str | None = None
    detail: str | None = None
    source: str | None = None
    rule: str | None = None
    status: int | None = None
    verb: str | None = None

    def to_json(self) -> dict:
        data = {f.name: getattr(self, f.name) for f in fields(self)
                if f.name != "cause" and getattr(self, f.name) is not None}
        return {"cause": self.cause.value, **data}

    @classmethod
    def from_json(cls, data: dict) -> Why:
        known = {f.name for f in fields(cls)} - {"cause"}
        return cls(Cause(data["cause"]), **{k: v for k, v in data.items() if k in known})
