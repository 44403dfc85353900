"""Rows of the performance table: how a `bench/bench_<name>.py` builds what its `rows()` returns.

A row is a plain dict (the convention every bench file follows, with or without this module):

    group      str            assignment or engine part ("bpe", "engine", "ad_modes", ...)
    what       str            what is measured, with the data size
    ours       float | None   our figure (None only when not measured)
    peer       float | None   the peer's figure, measured in the same run
    peer_name  str | None     e.g. "torch.autograd"
    unit       str            "s", "ms", "us/node", "MB/s", "x", ...
    ratio      float | None   ours / peer (the note says which direction is better)
    note       str            e.g. "lower is better", "not measured: no CUDA"

No figure here is a pass/fail threshold: rows are reported, never asserted on.
"""

from __future__ import annotations

import math
import statistics
import subprocess
import time
import traceback
from collections.abc import Callable
from pathlib import Path

KEYS = ("group", "what", "ours", "peer", "peer_name", "unit", "ratio", "note")


def row(group: str, what: str, ours: float | None, unit: str, *, peer: float | None = None,
        peer_name: str | None = None, note: str = "") -> dict:
    """One row; `ratio` is ours / peer when both are finite and peer is nonzero, else None."""
    ratio = None
    if ours is not None and peer is not None and math.isfinite(ours) and math.isfinite(peer) \
            and peer != 0:
        ratio = float(ours) / float(peer)
    return {"group": group, "what": what, "ours": None if ours is None else float(ours),
            "peer": None if peer is None else float(peer), "peer_name": peer_name, "unit": unit,
            "ratio": ratio, "note": note}


def not_measured(group: str, what: str, reason: str, peer_name: str | None = None) -> dict:
    """A row that says why it has no figure (e.g. reason="no CUDA")."""
    return {"group": group, "what": what, "ours": None, "peer": None, "peer_name": peer_name,
            "unit": "", "ratio": None, "note": f"not measured: {reason}"}


def failed(group: str, what: str, exc: BaseException) -> dict:
    """The row for a measurement that raised: the exception's type and first line."""
    lines = traceback.format_exception_only(type(exc), exc)
    first = (lines[-1] if lines else type(exc).__name__).strip().splitlines()[0]
    return not_measured(group, what, f"failed ({first[:200]})")


def guarded(group: str, whats: list[str], measure: Callable[[], list[dict]]) -> list[dict]:
    """measure()'s rows, or, if it raises, one `failed` row per expected `what`."""
    try:
        return list(measure())
    except Exception as exc:  # a broken measurement is a row, never a crash of the bench
        return [failed(group, what, exc) for what in whats]


def problems(r: object) -> list[str]:
    """What is wrong with a row returned by some rows() (empty when it is well formed)."""
    if not isinstance(r, dict):
        return [f"row is a {type(r).__name__}, not a dict"]
    out = [f"missing key {k!r}" for k in KEYS if k not in r]
    out += [f"unknown key {k!r}" for k in r if k not in KEYS]
    for key in ("group", "what", "unit", "note"):
        if key in r and not isinstance(r[key], str):
            out.append(f"{key} is not a str")
    for key in ("ours", "peer", "ratio"):
        value = r.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            out.append(f"{key} is not a number or None")
    if r.get("peer_name") is not None and not isinstance(r.get("peer_name"), str):
        out.append("peer_name is not a str or None")
    return out


def finite_or_none(r: dict) -> dict:
    """The row with NaN and infinite figures replaced by None (results.json stays valid JSON)."""
    return {k: (None if k in ("ours", "peer", "ratio") and v is not None
                and not math.isfinite(v) else v) for k, v in r.items()}


def print_rows(rows: list[dict]) -> None:
    """Print rows as aligned text lines (what a bench file's __main__ shows after its report)."""
    for r in rows:
        ours = "-" if r["ours"] is None else f"{r['ours']:.4g} {r['unit']}"
        peer = "" if r["peer"] is None else f" | {r['peer_name']}: {r['peer']:.4g} {r['unit']}"
        ratio = "" if r["ratio"] is None else f" | ratio {r['ratio']:.3g}"
        note = f" | {r['note']}" if r["note"] else ""
        print(f"[{r['group']}] {r['what']}: {ours}{peer}{ratio}{note}")


def full_run(proc: subprocess.CompletedProcess) -> bool:
    """A grading command ran to its end: exit 0, or 1 (some test failed, still a full run)."""
    return proc.returncode in (0, 1)


def command_seconds(cmd: list[str], cwd: Path, repeats: int = 1, env: dict | None = None,
                    ran: Callable[[subprocess.CompletedProcess], bool] = full_run) -> float:
    """Median wall seconds of `repeats` runs of `cmd` (in `cwd`, with `env`). Raises when a run
    is not what `ran` accepts, so a broken run never passes for a fast one."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - started)
        if not ran(proc):
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or [""]
            raise RuntimeError(f"{' '.join(cmd[1:5])} exited {proc.returncode}: {tail[0][:150]}")
    return statistics.median(times)
