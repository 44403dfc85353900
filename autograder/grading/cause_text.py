"""The one place a cause becomes text: `sentence(why)` words a `backends.causes.Reason` for the
student (a test's message, a problem of the submission or of the run), `first_line(why)` its
first line (a not-run reason, a table cell); `NOT_RUN` starts the message of a test that did
not run. Every sentence here is what results.json, the terminal and Gradescope show; no module
reads these sentences back (tests/selftest/test_causes.py greps the engine for them).
"""

from __future__ import annotations

from collections.abc import Callable

from ..backends.causes import Cause, Reason
from ..backends.run_folder import MAX_EVENT_BYTES, MAX_EVENTS
from ..backends.runner import MAX_COLLECT_ERRORS, MAX_ERRORS_PER_FILE

NOT_RUN = "not run: "  # the start of a message of a test that did not run
MAX_COLLECT_CHARS = 1500  # the end of a collection error that is kept
MAX_UNREADABLE_CHARS = 300  # of the sentence saying the submission's folders cannot be read


def sentence(why: Reason) -> str:
    """`why` in the student's words."""
    text = _TEXT.get(why.cause)
    if text is None:
        raise ValueError(f"no text for {why.cause!r}")
    return text(why)


def first_line(why: Reason) -> str:
    """The first line of `why`'s text: a test's not-run reason, a cell of a table."""
    return (sentence(why).strip().splitlines() or [""])[0]


def _forbidden_import(why: Reason) -> str:
    place = f"{why.file}, line {why.line}" if why.file is not None else "your code"
    return f"{place} imports '{why.module}', which this assignment forbids (it would do the work for you)"


def _forbidden_use(why: Reason) -> str:
    what = "it" if why.module == why.rule else f"'{why.rule}'"
    return (f"{why.file}, line {why.line} {why.verb} '{why.module}', which this assignment "
            f"forbids ({what} would do the work for you)")


def _missing_name(why: Reason) -> str:
    package, _, name = (why.function or "?").partition(".")
    return (f"{why.function} is missing from your package (the tests import it as `from "
            f"{package} import {name}`: define it, or import it in {package}/__init__.py)")


def _package_import(why: Reason) -> str:
    return (f"importing your package failed: {why.detail} ({why.file}:{why.line})"
            + (f"\n    {why.source}" if why.source else ""))[-MAX_COLLECT_CHARS:]


def _no_package(why: Reason) -> str:
    return (f"no '{why.module}' package found (expected a folder '{why.module}/' with "
            f"__init__.py, at the top or one folder down); {why.detail or 'found nothing like it'}")


def _syntax_error(why: Reason) -> str:
    """The error, then (where intake kept it) the offending line with a caret under the
    column."""
    head = f"SyntaxError in {why.file}, line {why.line}: {why.detail}"
    if why.source is None:
        return head
    return f"{head}\n    {why.source}\n    {' ' * (why.column or 0)}^"


def _collect_error(why: Reason) -> str:
    same = f"\n(the same error in {why.count} more test file(s))" if why.count else ""
    return f"{why.file}: {why.detail}{same}"


_TEXT: dict[Cause, Callable[[Reason], str]] = {
    Cause.SUBMISSION_REJECTED: lambda why: f"submission rejected: {why.detail}",
    Cause.NOT_A_SUBMISSION: lambda why: why.detail or "not a submission",
    Cause.NO_PACKAGES: lambda why: (f"no assignment package found in the submission (expected "
                                    f"one of: {why.detail})"),
    Cause.NOT_GRADED: lambda why: f"{why.label}: not graded: no '{why.module}' package; {why.detail}",
    Cause.NO_PACKAGE: _no_package,
    Cause.UNREADABLE: lambda why: (f"the submission's folders cannot be read "
                                   f"({why.detail})")[:MAX_UNREADABLE_CHARS],
    Cause.FILE_TOO_LARGE: lambda why: f"{why.file} is larger than {(why.limit or 0) / 2**20:g} MB",
    Cause.PACKAGE_TOO_LARGE: lambda why: (f"the package has too many or too large .py files "
                                          f"({why.detail})"),
    Cause.NO_INIT: lambda why: f"{why.module}/__init__.py is missing or not a regular file",
    Cause.SYNTAX_ERROR: _syntax_error,
    Cause.UNPARSABLE: lambda why: f"{why.file} cannot be parsed: {why.detail}",
    Cause.UNAVAILABLE: lambda why: ("the course's reference solution could not compute its "
                                    "answer on this grading's inputs"),
    Cause.FORBIDDEN_IMPORT: _forbidden_import,
    Cause.FORBIDDEN_USE: _forbidden_use,
    Cause.MISSING_NAME: _missing_name,
    Cause.TEST_TIMEOUT: lambda why: (f"timed out after {why.limit:g} s{_hang_site(why)} (an "
                                     f"endless loop, or far too slow)"),
    Cause.RUN_STOPPED: lambda why: "stopped: the whole run exceeded its time limit",
    Cause.CRASHED: lambda why: ("the test process died during this test"
                                + (f": {why.last}" if why.last else "")),
    Cause.NOT_LOADED: lambda why: ("its test file could not be loaded (see the problem above: "
                                   "usually your package raised while being imported)"),
    Cause.NOT_REACHED: lambda why: "not run (the test process stopped before reaching it)",
    Cause.PACKAGE_IMPORT: _package_import,
    Cause.COLLECT_ERROR: _collect_error,
    Cause.HIDDEN_COLLECT: lambda why: "a hidden test file could not be collected (details hidden)",
    Cause.START_FAILED: lambda why: f"the sandbox could not start the test process: {why.detail}",
    Cause.EXITED_EARLY: lambda why: (_process(why) + " exited before running these tests"
                                     + (f"; its last output:\n{why.last}" if why.last else "")),
    Cause.RUN_TIMEOUT: lambda why: f"the whole run exceeded its {why.limit:g} s limit",
    Cause.RESTARTS_EXCEEDED: lambda why: (
        f"{why.file}: stopped after {why.limit:g} restarts (a hang or crash in each); "
        f"its {why.count} remaining test(s) were not run"),
    Cause.OUTPUT_CUT: lambda why: f"{_process(why)} wrote more than the grader reads; the rest was cut",
    Cause.ERRORS_CUT: lambda why: (f"... {why.count:,} more collection errors cut (at most "
                                   f"{MAX_COLLECT_ERRORS} are kept, {MAX_ERRORS_PER_FILE} per "
                                   f"test file)"),
    Cause.EVENTS_CUT: lambda why: (f"... {why.count:,} more events cut (a test process may "
                                   f"report at most {MAX_EVENTS:,} events, each under "
                                   f"{MAX_EVENT_BYTES // 2**20} MiB)"),
    Cause.REFUSED: lambda why: why.detail or "refused",
    Cause.PRINTED: lambda why: (
        f"{_process(why)} printed "
        f"{_megabytes(why.count) if why.count else 'more than ' + _megabytes(why.limit)}"
        f"; the grader keeps the first {_megabytes(why.limit)} a test process prints and "
        f"discards the rest (printing in a loop is slow: a test that prints a lot may run out "
        f"of time)"),
}


def _megabytes(size: float | None) -> str:
    """A byte count in MB (GB from 1,000 MB on)."""
    size = size or 0
    return f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{size / 1e6:.1f} MB"


def _process(why: Reason) -> str:
    """The child as the student may see it named: a redacted one by its tests' label."""
    return f"the {why.label} tests' process" if why.label else "the test process"


def _hang_site(why: Reason) -> str:
    """' in fn() at file:line' where a test hung (the innermost implementation frame of the
    child's last stack dump), or ''."""
    if why.file is None:
        return ""
    function = why.function or ""
    named = f" in {function}()" if function and not function.startswith("<") else ""
    return f"{named} at {why.file}:{why.line}"
