"""Grading backends: where a run's sandboxed children execute. The grading service calls
`get_backend(policy.backend).run(request)`; what comes back is observations, judged by the
trusted parent exactly as for the host backend (the trust boundary does not move).

Adding a backend: write `autograder/backends/<name>.py` defining `BACKEND`, an object with
`name`, `problem() -> str | None` (why it cannot run here, or None) and
`run(request: RunRequest) -> RunResult`; then add one line to `REGISTRY`. The CLI's `--backend`
choices come from `REGISTRY`, so nothing else changes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..runner import RunRequest, RunResult

REGISTRY: dict[str, str] = {
    "host": "autograder.backends.host",  # this machine's sandbox (bubblewrap, uids, cgroups)
    "docker": "autograder.backends.docker",  # a fresh container per child (Docker API, podman)
}


class BackendError(Exception):
    """A backend is unknown or cannot run on this machine."""


class Backend(Protocol):
    name: str

    def problem(self) -> str | None:
        """Why this backend cannot run here (None: it can)."""

    def run(self, request: RunRequest) -> RunResult:
        """Run the request's tests; never raises for anything submitted code does."""


def get_backend(name: str) -> Backend:
    if name not in REGISTRY:
        raise BackendError(f"unknown backend {name!r} (known: {', '.join(REGISTRY)})")
    return importlib.import_module(REGISTRY[name]).BACKEND
