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
    raise NotImplementedError
