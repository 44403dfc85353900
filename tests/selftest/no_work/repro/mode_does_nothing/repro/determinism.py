# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""Bitwise determinism: the flags that make PyTorch pick deterministic kernels, as a context."""

import os  # noqa: F401 (used by the solution)
from collections.abc import Iterator
from contextlib import contextmanager

import torch  # noqa: F401 (used by the solution)

WORKSPACE_VARIABLE = "CUBLAS_WORKSPACE_CONFIG"
WORKSPACE_CONFIGS = (":4096:8", ":16:8")  # the two values cuBLAS documents as deterministic


@contextmanager
def deterministic_mode(enabled: bool = True) -> Iterator[None]:
    """Inside the block, PyTorch runs only deterministic algorithms (enabled=True) or may run
    any (enabled=False).

    enabled=True sets:
    - torch.use_deterministic_algorithms(True) with warn_only=False: an op that has no
      deterministic kernel raises RuntimeError instead of silently differing run to run;
    - torch.backends.cudnn.deterministic = True and torch.backends.cudnn.benchmark = False;
    - os.environ["CUBLAS_WORKSPACE_CONFIG"] to ":4096:8" or ":16:8" (keep one of those if it is
      already set).
    enabled=False: torch.use_deterministic_algorithms(False) and
    torch.backends.cudnn.deterministic = False (the others: your choice).

    On exit — also when the body raises — every setting is restored to what it was before:
    the deterministic-algorithms mode and its warn_only flag, both cuDNN flags, and the
    environment variable (removed again if it was unset before). Exceptions propagate.
    """
    yield
