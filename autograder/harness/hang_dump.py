"""Where a test hung: `HangDump` writes the stack of the thread that runs the tests to the
child's real stderr when a test runs past a set time, in faulthandler's format (a
`Timeout (H:MM:SS.ffffff)!` line, a `Thread 0x… (most recent call first):` line, then one
`  File "…", line N in name` line per frame, at most MAX_FRAMES), which the parent reads back
(backends/run_folder.hang_site) when the test then reaches its limit.

Not faulthandler.dump_traceback_later: its watchdog walks the other thread's frames without
the GIL while that thread runs, and on CPython 3.11 that crashes a child that is only slow
(SIGSEGV in the middle of the dump: a cold child still importing transformers when the dump
fired lost its test as "died"; a loop importing torch and transformers under a 10 ms repeating
dump died in 15 of 16 runs). This watchdog is a Python thread: it takes the GIL and reads
`sys._current_frames()`, so the stack it writes is consistent. A hang in Python code (which
gives the GIL up every switch interval) is located; one in native code that holds the GIL is
not, and its timeout names no site."""

from __future__ import annotations

import datetime
import os
import sys
import threading
import time

MAX_FRAMES = 100  # faulthandler's depth: the innermost frames, where a hang is


class HangDump:
    """`arm(after)`: dump the calling thread's stack `after` seconds from now unless `cancel()`
    comes first; one daemon thread, started at the first `arm`, serves every test."""

    def __init__(self, fd: int):
        self.fd = fd
        self.cond = threading.Condition()
        self.deadline: float | None = None
        self.after, self.target = 0.0, 0
        self.thread: threading.Thread | None = None

    def arm(self, after: float) -> None:
        with self.cond:
            self.deadline = time.monotonic() + after
            self.after, self.target = after, threading.get_ident()
            if self.thread is None:
                self.thread = threading.Thread(target=self._watch, name="hang-dump", daemon=True)
                self.thread.start()
            self.cond.notify()

    def cancel(self) -> None:
        with self.cond:
            self.deadline = None
            self.cond.notify()

    def _watch(self) -> None:
        while True:
            with self.cond:
                while self.deadline is None or time.monotonic() < self.deadline:
                    self.cond.wait(None if self.deadline is None
                                   else self.deadline - time.monotonic())
                self.deadline = None
                after, target = self.after, self.target
            self._dump(after, target)

    def _dump(self, after: float, target: int) -> None:
        frame = sys._current_frames().get(target)
        lines = [f"Timeout ({datetime.timedelta(seconds=after)})!\n",
                 f"Thread 0x{target:016x} (most recent call first):\n"]
        while frame is not None and len(lines) < MAX_FRAMES + 2:
            lines.append(f'  File "{frame.f_code.co_filename}", line {frame.f_lineno} in '
                         f"{frame.f_code.co_name}\n")
            frame = frame.f_back
        if frame is not None:
            lines.append("  ...\n")
        data = "".join(lines).encode("utf-8", "backslashreplace")
        try:
            while data:
                data = data[os.write(self.fd, data):]
        except OSError:
            pass  # no stderr: the timeout then names no site
