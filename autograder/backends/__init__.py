"""Grading backends: where a run's sandboxed children execute. Grading and golden generation
both call `get_backend(placement.backend).run(request)`; what comes back is observations,
judged by the trusted parent exactly as for the host backend (the trust boundary does not
move). The request, the result and the protocols are in `backends/base.py`.

Adding a backend: write `autograder/backends/<name>.py` defining `BACKEND`, an object with
`name`, `problem() -> str | None` (why it cannot run here, or None) and
`run(request: RunRequest) -> RunResult`; then add one line to `REGISTRY`. The CLI's `--backend`
choices come from `REGISTRY`, so nothing else changes. Submissions and the course's own code
(solutions, mutants, golden generation) run the same way: there is no separate path for
either.

May import: sandbox/, harness/ (the child's config type) and the top-level course modules
(assignments, audiences, markers); never grading/, authoring/, classroom/ or integrations/. Imported by
grading/ (every graded run), authoring/ (golden generation), classroom/, cli.py and
commands.py.
"""

from __future__ import annotations

import importlib
from dataclasses import replace

from .base import Backend, BackendError, Placement, RunRequest, RunResult

__all__ = ["REGISTRY", "Backend", "BackendError", "Placement", "get_backend", "run"]

REGISTRY: dict[str, str] = {
    "host": "autograder.backends.host",  # this machine's sandbox (bubblewrap, uids, cgroups)
    "docker": "autograder.backends.docker",  # a fresh container per child (Docker API, podman)
}


def get_backend(name: str) -> Backend:
    module = REGISTRY.get(name)
    if module is None:
        raise BackendError(f"unknown backend {name!r} (known: {', '.join(REGISTRY)})")
    return importlib.import_module(module).BACKEND


def run(request: RunRequest, placement: Placement | None = None) -> RunResult:
    """Run `request` on the placement's backend (default: the host), passing its GPUs."""
    placement = placement or Placement()
    if placement.gpus != request.gpus:
        request = replace(request, gpus=placement.gpus)
    return get_backend(placement.backend).run(request)
