"""`check --watch`: the public tests run again on every save under the package, and the report
is redrawn in place.

The grader process stays up between runs, and with it the assignment's warm zygote
(backends/warmbox.py, where the warm path runs here): after the first run a check is a fork
entering the sandbox, not a fresh interpreter. Saves are seen through inotify (watchfiles),
debounced (DEBOUNCE_MS); only `.py` files count. A save during a run makes that run stale: its
report is never shown and the next run starts as soon as it ends, on the files as they are
then. Ctrl-C stops watching: the run in flight is left through the runner's own cleanup (its
children killed, its run folder removed) and the zygotes close at exit; nothing keeps running.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from rich.console import Console
from rich.live import Live
from rich.text import Text

DEBOUNCE_MS = 200


def python_saves(root: Path, stop: threading.Event) -> Iterable[list[str]]:
    """Each debounced batch of changed `.py` files under `root` (file names, sorted), until
    `stop` is set."""
    import watchfiles

    for changes in watchfiles.watch(root, debounce=DEBOUNCE_MS, step=50, stop_event=stop,
                                    watch_filter=watchfiles.PythonFilter(), raise_interrupt=False,
                                    yield_on_timeout=False, rust_timeout=500):
        names = sorted({Path(path).name for _, path in changes})
        if names:
            yield names


def watch(run: Callable[[], object], report: Callable[[object, list[str]], None],
          saves: Iterable[list[str]], stop: threading.Event | None = None) -> int:
    """Run `run()` and `report(result, [])`, then again after each batch of `saves`
    (`report(result, the names saved since the last report)`). The runs happen in this thread
    (Ctrl-C interrupts the one in flight through its own cleanup); `saves` is read in another.
    A batch that arrives while a run is in flight makes that run stale: not reported, run
    again at once. Returns 0 once `saves` ends and its last batch is reported, 130 on Ctrl-C;
    either way `stop` (what ends `saves`) is set and the reading thread has ended (a watcher
    thread still inside inotify at interpreter exit crashes the process)."""
    pending: list[str] = []
    lock = threading.Lock()
    wake = threading.Event()
    ended = threading.Event()

    def listen() -> None:
        try:
            for names in saves:
                with lock:
                    pending.extend(n for n in names if n not in pending)
                    wake.set()
        finally:
            ended.set()
            wake.set()

    listener = threading.Thread(target=listen, name="check-watch", daemon=True)
    listener.start()
    names: list[str] = []
    try:
        while True:
            result = run()
            with lock:
                if pending:  # saved during the run: run again on the files as they are now
                    names, pending[:] = sorted(set(names) | set(pending)), []
                    continue
                report(result, names)
                wake.clear()
                if ended.is_set():
                    return 0
            wake.wait()
            with lock:
                names, pending[:] = sorted(pending), []
                if not names and ended.is_set():
                    return 0
    except KeyboardInterrupt:
        return 130
    finally:
        if stop is not None:
            stop.set()
        listener.join(timeout=10)


def live_report(console: Console, show: Callable[[Console, object], None],
                headline: Callable[[list[str]], str]) -> tuple[Callable, Callable[[], None]]:
    """A `report` for `watch` that redraws the whole report in place on a terminal (rich
    Live), or prints each report after a rule when piped; and a function that ends it."""
    if not console.is_terminal:
        def printed(result, names):
            console.print(headline(names), markup=False, highlight=False)
            show(console, result)
            console.file.flush()
        return printed, lambda: None
    live = Live(console=console, auto_refresh=False, vertical_overflow="visible",
                redirect_stdout=False, redirect_stderr=False)
    live.start()

    def redrawn(result, names):
        buffer = Console(file=io.StringIO(), force_terminal=True, width=console.width,
                         color_system=console.color_system, soft_wrap=False)
        buffer.print(headline(names), markup=False, highlight=False)
        show(buffer, result)
        live.update(Text.from_ansi(buffer.file.getvalue()), refresh=True)

    return redrawn, live.stop
