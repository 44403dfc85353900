"""The one place a cause becomes text: `render(why)` words a `backends.causes.Why` for the
student (a test's message, a problem of the run); `NOT_RUN` starts the message of a test that
did not run. Every sentence here is what results.json, the terminal and Gradescope show; no
module reads these sentences back (tests/selftest/test_causes.py greps the engine for them).
"""

from __future__ import annotations

from ..backends.causes import Cause, Why
from ..backends.run_folder import MAX_EVENT_BYTES, MAX_EVENTS
from ..backends.runner import MAX_COLLECT_ERRORS, MAX_ERRORS_PER_FILE

NOT_RUN = "not run: "  # the start of a message of a test that did not run
MAX_COLLECT_CHARS = 1500  # the end of a collection error that is kept


def render(why: Why) -> str:
    """`why` in the student's words."""
    c = why.cause
    if c is Cause.FORBIDDEN_IMPORT:
        place = f"{why.file}, line {why.line}" if why.file is not None else "your code"
        return (f"{place} imports '{why.module}', which this assignment forbids (it would do "
                f"the work for you)")
    if c is Cause.FORBIDDEN_USE:
        what = "it" if why.module == why.rule else f"'{why.rule}'"
        return (f"{why.file}, line {why.line} {why.verb} '{why.module}', which this assignment "
                f"forbids ({what} would do the work for you)")
    if c is Cause.TEST_TIMEOUT:
        return (f"timed out after {why.limit:g} s{_hang_site(why)} (an endless loop, or far too "
                f"slow)")
    if c is Cause.RUN_STOPPED:
        return "stopped: the whole run exceeded its time limit"
    if c is Cause.CRASHED:
        return "the test process died during this test" + (f": {why.last}" if why.last else "")
    if c is Cause.NOT_LOADED:
        return ("its test file could not be loaded (see the problem above: usually your "
                "package raised while being imported)")
    if c is Cause.NOT_REACHED:
        return "not run (the test process stopped before reaching it)"
    if c is Cause.PACKAGE_IMPORT:
        return (f"importing your package failed: {why.detail} ({why.file}:{why.line})"
                + (f"\n    {why.source}" if why.source else ""))[-MAX_COLLECT_CHARS:]
    if c is Cause.COLLECT_ERROR:
        return f"{why.file}: {why.detail}"
    if c is Cause.HIDDEN_COLLECT:
        return "a hidden test file could not be collected (details hidden)"
    if c is Cause.START_FAILED:
        return f"the sandbox could not start the test process: {why.detail}"
    if c is Cause.EXITED_EARLY:
        return (_process(why) + " exited before running these tests"
                + (f"; its last output:\n{why.last}" if why.last else ""))
    if c is Cause.RUN_TIMEOUT:
        return f"the whole run exceeded its {why.limit:g} s limit"
    if c is Cause.RESTARTS_EXCEEDED:
        return (f"{why.file}: stopped after {why.limit:g} restarts (a hang or crash in each); "
                f"its {why.count} remaining test(s) were not run")
    if c is Cause.OUTPUT_CUT:
        return f"{_process(why)} wrote more than the grader reads; the rest was cut"
    if c is Cause.ERRORS_CUT:
        return (f"... {why.count:,} more collection errors cut (at most {MAX_COLLECT_ERRORS} "
                f"are kept, {MAX_ERRORS_PER_FILE} per test file)")
    if c is Cause.EVENTS_CUT:
        return (f"... {why.count:,} more events cut (a test process may report at most "
                f"{MAX_EVENTS:,} events, each under {MAX_EVENT_BYTES // 2**20} MiB)")
    if c is Cause.REFUSED:
        return why.detail or "refused"
    raise ValueError(f"no text for {c!r}")


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
