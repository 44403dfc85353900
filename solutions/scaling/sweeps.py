"""Sweep hygiene: the runs whose setup differs from the sweep's baseline."""

from __future__ import annotations

from collections import Counter


def invalid_sweep_runs(runs, key_fields) -> list:
    """Runs whose `key_fields` values differ from the baseline, in input order.

    runs: iterable of dicts (one per training run). The baseline is the most common combination
    of the key_fields' values (ties: the combination seen first); a missing field counts as None.
    """
    runs = list(runs)
    keys = [tuple(run.get(f) for f in key_fields) for run in runs]
    baseline = Counter(keys).most_common(1)[0][0] if keys else None  # ties: first inserted
    return [run for run, key in zip(runs, keys) if key != baseline]
