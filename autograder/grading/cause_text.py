"""The one place a cause becomes text: `render(why)` words a `backends.causes.Why` for the
student (a test's message, a problem of the run); `NOT_RUN` starts the message of a test that
did not run. Every sentence here is what results.json, the terminal and Gradescope show; no
module reads these sentences back (tests/selftest/test_causes.py greps the engine for them).
"""

from __future__ import annotations

from collections.abc import Callable

from ..backends.causes import Cause, Why
from ..backends.run_folder import MAX_EVENT_BYTES, MAX_EVENTS
from ..backends.runner import MAX_COLLECT_ERRORS, MAX_ERRORS_PER_FILE

NOT_RUN = "not run: "  # the start of a message of a test that did not run
MAX_COLLECT_CHARS = 1500  # the end of a collection error that is kept


def render(why: Why) -> str:
    """`why` in the student's words."""
    text = _TEXT.get(why.cause)
    if text is None:
        raise ValueError(f"no text for {why.cause!r}")
    return text(why)


def _forbidden_import(why: Why) -> str:
    place = f"{why.file}, line {why.line}" if why.file is not None else "your code"
    return f"{place} imports '{why.module}', which this assignment forbids (it would do the work for you)"


def _forbidden_use(why: Why) -> str:
    what = "it" if why.module == why.rule else f"'{why.rule}'"
    return (f"{why.file}, line {why.line} {why.verb} '{why.module}', which this assignment "
            f"forbids ({what} would do the work for you)")


def _package_import(why: Why) -> str:
    return (f"importing your package failed: {why.detail} ({why.file}:{why.line})"
            + (f"\n    {why.source}" if why.source else ""))[-MAX_COLLECT_CHARS:]


_TEXT: dict[Cause, Callable[[Why], str]] = {
    Cause.FORBIDDEN_IMPORT: _forbidden_import,
    Cause.FORBIDDEN_USE: _forbidden_use,
    Cause.TEST_TIMEOUT: lambda why: (f"timed out after {why.limit:g} s{_hang_site(why)} (an "
                                     f"endless loop, or far too slow)"),
    Cause.RUN_STOPPED: lambda why: "stopped: the whole run exceeded its time limit",
    Cause.CRASHED: lambda why: ("the test process died during this test"
                                + (f": {why.last}" if why.last else "")),
    Cause.NOT_LOADED: lambda why: ("its test file could not be loaded (see the problem above: "
                                   "usually your package raised while being imported)"),
    Cause.NOT_REACHED: lambda why: "not run (the test process stopped before reaching it)",
    Cause.PACKAGE_IMPORT: _package_import,
    Cause.COLLECT_ERROR: lambda why: f"{why.file}: {why.detail}",
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
}


def _process(why: Why) -> str:
    """The child as the student may see it named: a redacted one by its tests' label."""
    return f"the {why.label} tests' process" if why.label else "the test process"


def _hang_site(why: Why) -> str:
    """' in fn() at file:line' where a test hung (the innermost implementation frame of the
    child's last stack dump), or ''."""
    if why.file is None:
        return ""
    function = why.function or ""
    named = f" in {function}()" if function and not function.startswith("<") else ""
    return f"{named} at {why.file}:{why.line}"
