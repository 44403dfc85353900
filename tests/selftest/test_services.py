"""Every service the course starts stops with its parent: `make docker-serve`
(docker/build.py serve) stopped by SIGTERM, SIGHUP, Ctrl-C or SIGKILL leaves no podman service behind
(`podman system service` is in a session of its own, so SIGTERM to the parent alone would
leave it running)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import processes_mentioning

from autograder.backends.docker_image import podman_problem

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(podman_problem() is not None, reason=str(podman_problem()))


def _pids_with(text: str) -> list[int]:
    """Processes (not this one) whose command line mentions `text`."""
    return processes_mentioning(text, ("cmdline",))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGKILL])
def test_docker_serve_stops_its_podman_service(sig):
    serve = subprocess.Popen([sys.executable, str(ROOT / "docker" / "build.py"), "serve"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    socket = None
    try:
        line = serve.stdout.readline()  # blocks until the service answers (<= 60 s) or exits
        assert line.startswith("export DOCKER_HOST=unix://"), line + serve.stderr.read()
        socket = line.strip().removeprefix("export DOCKER_HOST=unix://")
        service = [p for p in _pids_with(socket) if p != serve.pid]
        assert service, "no podman service process found"
        serve.send_signal(sig)
        assert serve.wait(timeout=30) == (-signal.SIGKILL if sig == signal.SIGKILL else 0)
        # the watchdog gives the service up to 10 s to stop, then kills it and removes its folder
        # (its own start and those sleeps stretch on a loaded machine)
        deadline = time.monotonic() + 30
        while (_pids_with(socket) or Path(socket).parent.exists()) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _pids_with(socket), f"{sig.name}: podman service left running"
        assert not Path(socket).parent.exists()
    finally:
        # a service this test left (never another test's: a container test in another worker
        # may be using its own podman service right now)
        left = _pids_with(socket) if socket else _children(serve.pid)
        if serve.poll() is None:
            serve.kill()
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _children(ppid: int) -> list[int]:
    """The processes whose parent is `ppid` (the service serve started, in its own session)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == ppid:
            found.append(int(stat.parent.name))
    return found
