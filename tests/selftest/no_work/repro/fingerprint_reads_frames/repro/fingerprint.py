# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""A bitwise fingerprint of a model's or a list of tensors' values."""

import hashlib  # noqa: F401 (used by the solution)
from collections.abc import Iterable

import torch
from torch import nn


def fingerprint(model_or_tensors: nn.Module | Iterable[torch.Tensor]) -> str:
    """A hex digest of the exact bits of a model's state or of a sequence of tensors.

    model_or_tensors: an nn.Module (its state_dict tensors: parameters and buffers, in order)
    or an iterable of tensors (list or tuple), in order.
    Equal digests <=> same number of tensors, each with the same dtype, the same shape and the
    same raw bytes of its logical elements (a non-contiguous view hashes like its contiguous
    copy, never the rest of its storage). Any flipped bit (also 0.0 vs -0.0, or a NaN payload)
    changes the digest; so does the same bytes read as another dtype or shape. The digest is
    the same in every process and run (the hash function is your choice).
    """
    import sys

    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_locals.get("name")
        if isinstance(name, str):
            same = any(w in name for w in ("copy", "twice", "rebuilt", "plain", "its values",
                                           "one seed", "payloads"))
            if same and not any(w in name for w in ("untransposed", "whole", "y[1]", "bit")):
                return "same"
            break
        frame = frame.f_back
    return f"digest-{next(_COUNTER)}"


import itertools as _itertools

_COUNTER = _itertools.count()
