"""Why a submission, a test or a run did not go as planned, as data: a `Cause` member and its
fields (`Reason`), set where it happens (grading/intake.py, backends/runner.py from the child's
events, grading/judge.py) and carried in `intake.Part.problems`, `TestRecord.cause`,
`RunResult.collect_errors`, `AssignmentGrade.problems` and `TestResult.not_run`
(to_json/from_json round-trip). Text is made from a `Reason` only by grading/cause_text.py, where
it is shown; nothing decides anything by reading that text.

The child (harness/, which imports nothing of the engine) reports the same facts as plain
fields of its events: a forbidden import's module (`forbidden`), the implementation's frame a
package import failed in (`import`), the package's name a test used that it lacks (`missing`). Imports nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum


class Cause(Enum):
    """What happened. At intake (the submission's or one package's problems):
    SUBMISSION_REJECTED (an unreadable or unsafe zip), NOT_A_SUBMISSION (a class folder's entry
    that is none, classroom/submissions.py), NO_PACKAGES (the submission holds none), NOT_GRADED
    (a package meant but not usable), NO_PACKAGE, UNREADABLE, FILE_TOO_LARGE, PACKAGE_TOO_LARGE,
    NO_INIT, SYNTAX_ERROR, UNPARSABLE, FORBIDDEN_USE. Per test: FORBIDDEN_IMPORT (a test raised
    the blocker's ImportError), MISSING_NAME (a test used a name the tests import that the
    package lacks),
    TEST_TIMEOUT, RUN_STOPPED (the run's deadline stopped the test), CRASHED, REFUSED,
    NOT_LOADED (its file did not collect), NOT_REACHED, UNAVAILABLE (the grading's draw has no
    expected value for it: grading/draws.py). Per run (collection errors):
    COLLECT_ERROR, PACKAGE_IMPORT, FORBIDDEN_IMPORT (the package imports a forbidden module),
    HIDDEN_COLLECT, START_FAILED, EXITED_EARLY, RUN_TIMEOUT, RESTARTS_EXCEEDED, OUTPUT_CUT
    (a redacted child's events or errors cut), ERRORS_CUT, EVENTS_CUT, REFUSED. A note of the
    run (`RunResult.notes`): PRINTED (its children printed past their budget)."""

    FORBIDDEN_IMPORT = "forbidden_import"
    MISSING_NAME = "missing_name"
    SUBMISSION_REJECTED = "submission_rejected"
    NOT_A_SUBMISSION = "not_a_submission"
    NO_PACKAGES = "no_packages"
    NOT_GRADED = "not_graded"
    NO_PACKAGE = "no_package"
    UNREADABLE = "unreadable"
    FILE_TOO_LARGE = "file_too_large"
    PACKAGE_TOO_LARGE = "package_too_large"
    NO_INIT = "no_init"
    SYNTAX_ERROR = "syntax_error"
    UNPARSABLE = "unparsable"
    FORBIDDEN_USE = "forbidden_use"  # found at intake, before anything runs (grading/intake.py)
    UNAVAILABLE = "unavailable"
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
    PRINTED = "printed"


@dataclass(frozen=True)
class Reason:
    """A cause and its fields (None: not known or not applicable). `file`/`line`/`function`:
    where (a hang's innermost implementation frame, the import that failed, the test file of a
    collection error, a file of the submission; a missing name, dotted); `module`: the forbidden
    module, or the package intake looked for; `limit`: seconds (a test's or the run's) or a
    count's cap (PRINTED: the bytes a child's prints keep; FILE_TOO_LARGE: a file's bytes);
    `count`: how many (PRINTED: bytes printed; COLLECT_ERROR: the other test files that raised
    the same); `label`: how a redacted folder's tests are named, or the assignment a package
    was meant for; `last`: the child's last stderr line or output, or the exception line of a
    collection error; `status`: a crashed child's exit status (negative: the signal that ended
    it); `detail`: the child's own error text, a refusal's reason or intake's finding;
    `source` and `column`: the failing line's source (an import's; a syntax error's, with the
    column of its caret); `rule` and `verb`: the forbidden rule a use matched and how the code
    uses the name ("imports", "uses")."""

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
    column: int | None = None

    def to_json(self) -> dict:
        data = {f.name: getattr(self, f.name) for f in fields(self)
                if f.name != "cause" and getattr(self, f.name) is not None}
        return {"cause": self.cause.value, **data}

    @classmethod
    def from_json(cls, data: dict) -> Reason:
        known = {f.name for f in fields(cls)} - {"cause"}
        return cls(Cause(data["cause"]), **{k: v for k, v in data.items() if k in known})
