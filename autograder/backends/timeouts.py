"""Per-test wall timeouts sized from the reference solution's own measured time. Trusted.

`make goldens` times every test of the reference twice (the child's clock, from the test's
start event to its end event), replaying it on the stored inputs as a graded run does: in test
order and in reverse order, so that the one-off costs a test pays when it is the first of its child to use a shared
fixture, a cached model or a lazy import land on other tests. It stores per test its slowest
run (`TestSpec.seconds`) and per store the cold pool (`GoldenStore.cold_seconds`, `cold_pool`):
the one-off costs that moved between the two runs, which any test may pay when it is the first
of its child to need them (after a restart, or under `check --task`).

At grading time a test's limit is

    min(cap, max(FLOOR_S, MULTIPLE x (seconds + cold_seconds)))

where `cap` is what the limit was before timings existed (the test's `@graded(timeout=)`, else
the assignment's `test_timeout`): a derived limit only ever shortens a hang, never lengthens a
run. A test without a stored timing (goldens written before timings existed, or a test the
reverse replay did not pass) keeps its cap, and so does every test of an assignment whose
assignment.toml says `measured_timeouts = false`, and a test marked `@graded(measured=False)`
(its wrong answers wait by design longer than the reference's whole run). The limits reach the child the way the caps
did (the parent's plan, the parent's clock); the child cannot change them.

Why these values: a correct submission on a loaded 2-core machine (six processes on two cores
run each at about a third of its speed) must never reach the limit. MULTIPLE = 10 leaves a 3x
load slowdown on top of a student's implementation 3x slower than the reference, and the timing
itself may have been taken on a quiet machine; FLOOR_S = 2 s covers what does not scale with
the work: a scheduler stall, a page-cache miss, a garbage collection, the parent's polling
(`runner.POLL_S`, 10 ms, 50 ms after a quiet second). A timing taken on a busy machine only makes limits longer.

A machine busier at grading time than when the goldens were made stretches every derived limit
by `machine_slowdown()` (runnable processes per core: the smaller of the 1-minute load
average and the count now, at least 1, at most MAX_SLOWDOWN; still never past the cap): on a
quiet machine a hang costs the derived limit, while a correct submission graded on a machine
running 30 processes on 2 cores gets 15 times as long rather than a timeout. The factor is
read once, when a run starts, before its first child exists (runner.run_tests freezes it into
the RunRequest): load the run's own children create (a submission spinning up dozens of busy
processes) never lengthens a limit of that run, and no reading, however high, stretches a
limit past MAX_SLOWDOWN times the quiet one.
"""

from __future__ import annotations

import os
import time

FLOOR_S = 2.0  # no derived limit is shorter
MULTIPLE = 10.0  # times the reference's slowest measured run (cold pool included)
MAX_SLOWDOWN = 15.0  # no load reading stretches a derived limit further
RUNNABLE_SAMPLES = 5  # readings of the runnable count that machine_slowdown averages
RUNNABLE_GAP_S = 0.01  # seconds between them


def derived_timeout(seconds: float | None, cap: float, slowdown: float = 1.0) -> float:
    """A test's wall limit in seconds from the reference's measured `seconds` (its slowest run
    plus the store's cold pool; None: never measured), its `cap` (explicit or default
    limit, > 0) and how much slower the machine was when the run started (`slowdown`, see
    machine_slowdown; clamped to [1, MAX_SLOWDOWN]). Always in [min(FLOOR_S, cap), cap]."""
    if seconds is None or seconds < 0:
        return cap
    factor = min(MAX_SLOWDOWN, max(1.0, slowdown))
    return min(cap, factor * max(FLOOR_S, MULTIPLE * seconds))


def runnable_now() -> float | None:
    """Tasks runnable on the machine now, the reader excluded: /proc/loadavg's running count
    averaged over RUNNABLE_SAMPLES readings RUNNABLE_GAP_S apart; None where unreadable."""
    total = 0
    for k in range(RUNNABLE_SAMPLES):
        try:
            with open("/proc/loadavg") as f:
                total += int(f.read().split()[3].split("/")[0]) - 1
        except (OSError, ValueError, IndexError):
            return None
        if k + 1 < RUNNABLE_SAMPLES:
            time.sleep(RUNNABLE_GAP_S)
    return max(0.0, total / RUNNABLE_SAMPLES)


def machine_slowdown() -> float:
    """How many runnable processes share each core (the smaller of the 1-minute load average
    and the runnable count now, over the usable cores), in [1, MAX_SLOWDOWN]: the factor a
    CPU-bound test is slowed by on this machine. The machine counts as busy only when it has
    been and still is: the average alone keeps for a minute the load of processes an earlier
    run started and that are gone (each child's processes die with it). Read it before a run
    starts, never during one (see the module)."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average (not Linux): assume a quiet machine
        return 1.0
    now = runnable_now()
    if now is not None:
        load = min(load, now)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(MAX_SLOWDOWN, max(1.0, load / max(1, cores or 1)))


def cold_pool(pairs: list[tuple[float, float]]) -> float:
    """The one-off costs that moved between the forward and the reverse run of the reference,
    from (forward, reverse) seconds of the tests timed in both: a cost that test A pays going
    forward and test Z pays in reverse makes A slower forward and Z slower in reverse by the
    same amount, so the pool is the smaller of the two sums (slower forward, slower in
    reverse). One heavy test's noise, or a machine busier during one run, moves only one sum."""
    forward = sum(max(f - r, 0.0) for f, r in pairs)
    reverse = sum(max(r - f, 0.0) for f, r in pairs)
    return min(forward, reverse)
