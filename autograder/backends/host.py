"""The host backend: children run on this machine inside `autograder.sandbox`."""

from __future__ import annotations

from ..runner import RunRequest, RunResult, run_tests


class HostBackend:
    name = "host"

    def problem(self) -> str | None:
        return None

    def run(self, request: RunRequest) -> RunResult:
        return run_tests(request)


BACKEND = HostBackend()
