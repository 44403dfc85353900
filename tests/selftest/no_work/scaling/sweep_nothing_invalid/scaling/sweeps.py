# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""Sweep hygiene: the runs whose setup differs from the sweep's baseline."""

from __future__ import annotations

from collections import Counter


def invalid_sweep_runs(runs, key_fields) -> list:
    """The runs whose `key_fields` values differ from the baseline, in input order.

    runs: iterable of dicts, one per training run (e.g. {"id": 3, "data_mix": "web-v2", ...}).
    key_fields: field names that must agree across a sweep (data mix, tokenizer, schedule...).
    The baseline is the most common combination of the key_fields' values (ties: the
    combination seen first). A run missing a field has None for it. Returns the run dicts
    themselves.
    """
    return []
