"""What a graded child prints: capped, counted, and each test's tail kept.

Runs in the sandbox. boot.py replaces `sys.stdout` and `sys.stderr` with two `CappedStream`s
sharing one `PrintBudget`, and pytest captures nothing (`--capture=no`): the first KEEP_BYTES
the child prints go through to its real streams (the run folder's stdout and stderr files),
the rest is counted and discarded. A print in a loop then costs a counter's update once the
budget is spent, whatever reads those files and however fast: the score of a submission that
floods its output never depends on that. The plugin (plugin.py) marks each test's start and
reads what it printed (`PrintBudget.since_mark`: its bytes and its last TAIL_CHARS characters)
and the child's running total for its events; the parent shows a public test's tail under its
failure and says how much a child printed beyond the budget (backends/runner.py).

Output written to the file descriptors directly (C code, `os.write`, a fresh interpreter's
prints) bypasses this; the sandbox's file-size limit bounds it.
"""

from __future__ import annotations

from typing import Any, TextIO

KEEP_BYTES = 2**20  # what one child's prints reach its real streams with; the rest is counted
TAIL_CHARS = 2000  # the end of what one test printed, kept for its end event
CUT_LINE = ("\n[the grader keeps the first {:,} bytes a test process prints; the rest is "
            "counted and discarded]\n")


class PrintBudget:
    """One child's printed output: `total` bytes printed (UTF-8), `left` that may still go
    through to the real streams, and the text printed since the last `mark` (its byte count
    and its last TAIL_CHARS characters)."""

    def __init__(self, keep: int = KEEP_BYTES):
        self.left, self.total = keep, 0
        self.keep, self.cut_said = keep, False
        self.marked_at, self.tail = 0, ""

    def mark(self) -> None:
        """A test starts: what it prints is counted from here."""
        self.marked_at, self.tail = self.total, ""

    def since_mark(self) -> tuple[int, str]:
        """(bytes printed since `mark`, the last TAIL_CHARS characters of it)."""
        return self.total - self.marked_at, self.tail[-TAIL_CHARS:]


class CappedStream:
    """A text stream in front of `raw` (the child's sys.stdout or sys.stderr) that writes
    through while `budget` lasts, then only counts (a plain object: an io.TextIOBase subclass
    makes each print half as slow again). Its file descriptor, encoding and binary `buffer`
    are raw's (the buffer's writes are counted and capped the same way)."""

    def __init__(self, raw: TextIO, budget: PrintBudget):
        self.raw, self.budget = raw, budget
        self.buffer = _CappedBinary(self)
        self.encoding = getattr(raw, "encoding", "utf-8")
        self.errors = getattr(raw, "errors", None)

    def write(self, text: str) -> int:
        if type(text) is not str and not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        budget = self.budget
        size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogateescape"))
        budget.total += size
        tail = budget.tail + text[-TAIL_CHARS:]
        budget.tail = tail if len(tail) <= 2 * TAIL_CHARS else tail[-TAIL_CHARS:]
        if budget.left <= 0:
            return len(text)
        if size <= budget.left:
            budget.left -= size
            self.raw.write(text)
            return len(text)
        kept = text.encode("utf-8", "surrogateescape")[:budget.left].decode("utf-8", "ignore")
        budget.left = 0
        self.raw.write(kept)
        if not budget.cut_said:
            budget.cut_said = True
            self.raw.write(CUT_LINE.format(budget.keep))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.raw.flush()

    def fileno(self) -> int:
        return self.raw.fileno()

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def seekable(self) -> bool:
        return False

    @property
    def closed(self) -> bool:
        return False

    def close(self) -> None:
        self.flush()


class _CappedBinary:
    """`CappedStream.buffer`: bytes written there count against the same budget."""

    def __init__(self, stream: CappedStream):
        self.stream = stream

    def write(self, data: bytes) -> int:
        self.stream.flush()
        self.stream.write(bytes(data).decode("utf-8", "replace"))
        return len(data)

    def flush(self) -> None:
        self.stream.flush()


def install(budget: PrintBudget) -> None:
    """Put capped streams in front of the process's stdout and stderr (boot.py, before pytest
    starts)."""
    import sys

    sys.stdout = CappedStream(sys.stdout, budget)
    sys.stderr = CappedStream(sys.stderr, budget)
