"""How a bulk run stops on Ctrl-C (SIGINT) or SIGTERM: `StopSignals` turns the first of them
into `Interrupted`, raised in the main thread, but only inside an `armed()` region (listing
and hashing the class, waiting on the graders, the similarity scan: nothing is written there);
outside one (writing grades.csv, canvas.csv, the reports) the signal is noted and raised when
the next region starts, so a file is never left half-made by the signal. A second signal
during the cleanup is noted, never raised again. `BulkInterrupted` is what bulk then raises
to its caller, with the counts the command prints (`line`): the students graded so far
(resumed ones included, each with its results on disk) of the class.

A SIGINT the process inherited as ignored (`cmd &` in a non-interactive shell) stays ignored,
as Python's own default leaves it. Handlers are set only from the main thread (signal's rule);
elsewhere the run is not interruptible by signal.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

EXIT_STATUS = 130  # 128 + SIGINT, the shell's status for a command stopped by Ctrl-C


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived (a BaseException, like KeyboardInterrupt: no `except
    Exception` of a student's job swallows it)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class BulkInterrupted(Exception):
    """A bulk run stopped by a signal: `graded` students of `total` have their results on disk
    (a rerun of the same command grades only the others)."""

    def __init__(self, graded: int, total: int):
        super().__init__(f"interrupted: {graded} of {total} graded; run the same command to "
                         f"resume")
        self.graded, self.total = graded, total

    @property
    def line(self) -> str:
        return str(self)


@dataclass
class ClassCount:
    """How far a bulk run got: the class's size (None until it is listed) and the students
    with their results on disk (resumed ones included)."""

    total: int | None = None
    graded: int = 0


class StopSignals:
    """SIGINT and SIGTERM while installed (`with StopSignals() as stop:`); `signum` is the
    first one that arrived (None: none yet)."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.signum: int | None = None
        self.raised = False
        self._armed = 0
        self._previous: dict[int, object] = {}

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                old = signal.getsignal(sig)
                if sig == signal.SIGINT and old == signal.SIG_IGN:
                    continue
                self._previous[sig] = old
                signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for sig, old in self._previous.items():
            signal.signal(sig, old)
        self._previous.clear()

    def _handle(self, signum: int, frame) -> None:
        if self.signum is None:
            self.signum = signum
        if self._armed and not self.raised:
            self.raised = True
            raise Interrupted(self.signum)

    @contextmanager
    def armed(self) -> Iterator[None]:
        """A region where the first signal raises Interrupted at once (and at its start, when
        one arrived before)."""
        if self.signum is not None and not self.raised:
            self.raised = True
            raise Interrupted(self.signum)
        self._armed += 1
        try:
            yield
        finally:
            self._armed -= 1
