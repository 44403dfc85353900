"""`clean_call`: run student code on a stack that holds nothing of the test.

Runs in the sandbox. A student function can walk its callers' frames (`sys._getframe`,
`inspect.stack`) and read the test's inputs, observation names or verdicts there; called
through `clean_call`, its only callers are a fresh thread's bootstrap and `_call_into`, whose
locals are the function and its arguments. The thread primitives are bound when the harness is
imported (before any student package), so rebinding `_thread.start_new_thread` or
`_thread.allocate_lock` later changes nothing here.
"""

from __future__ import annotations

import _thread
from collections.abc import Callable
from typing import Any

_START, _LOCK = _thread.start_new_thread, _thread.allocate_lock


def clean_call(fn: Callable[..., Any], *args: Any) -> Any:
    """fn(*args) on a fresh thread whose stack holds nothing but fn and its arguments, so no
    test input, observation name or expected verdict is reachable from the student's frames.
    Returns fn's result or raises its exception in the caller's thread (so
    `rec.raises(name, clean_call, fn, ...)` records it). Blocks until fn returns."""
    box: list = []
    done = _LOCK()
    done.acquire()
    _START(_call_into, (box, done, fn, args))
    done.acquire()
    ok, value = box[0]
    if ok:
        return value
    raise value


def _call_into(box: list, done, fn: Callable[..., Any], args: tuple) -> None:
    try:
        box.append((True, fn(*args)))
    except BaseException as exc:  # noqa: BLE001 (re-raised in the caller's thread)
        box.append((False, exc))
    finally:
        done.release()
