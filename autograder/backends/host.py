"""The host backend: children run on this machine inside `autograder.sandbox`, warm (forks of
a zygote entering the sandbox bubblewrap built: backends/warmbox.py) where that runs here, else
through the cold chain (`HostBox`, backends/hostbox.py)."""

from __future__ import annotations

import threading

from . import warmbox
from .base import RunRequest, RunResult
from .hostbox import HostBox, HostChild, kill_group
from .runner import run_tests

__all__ = ["BACKEND", "HostBackend", "HostBox", "HostChild", "kill_group"]


class HostBackend:
    """Children on this machine: warm (zygote forks entering a sandbox bubblewrap built,
    backends/warmbox.py) where that runs here, else the cold chain (`HostBox`)."""

    name = "host"

    def __init__(self):
        self.lock = threading.Lock()
        self.zygotes = None  # warmbox.WarmZygotes, made on first use

    def problem(self) -> str | None:
        return None

    def warm_zygotes(self) -> warmbox.WarmZygotes:
        """This process's zygotes (made on first use)."""
        with self.lock:
            if self.zygotes is None:
                self.zygotes = warmbox.WarmZygotes()
            return self.zygotes

    def run(self, request: RunRequest) -> RunResult:
        return run_tests(request, self.warm_zygotes().factory(request) or HostBox)


BACKEND = HostBackend()
