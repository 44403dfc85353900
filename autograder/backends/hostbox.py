"""The host backend's cold chain: `HostBox` is the `ChildBox` the runner drives for a child that
starts as a fresh `python` inside `autograder.sandbox` (the docker backend's `ContainerBox` is
another; backends/warmbox.py's `WarmBox` extends it)."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from ..assignments import GRADED_INPUTS
from ..sandbox import Capabilities, RunSandbox, readable_by_others
from .base import Child, RunRequest


class HostChild:
    """A child process on this machine, in its own process group."""

    def __init__(self, proc: subprocess.Popen):
        self.proc = proc

    def poll(self) -> int | None:
        return self.proc.poll()

    def kill(self) -> None:
        kill_group(self.proc)


class HostBox:
    """The host sandbox (`autograder.sandbox.RunSandbox`) as a ChildBox."""

    @staticmethod
    def hidden_refusal(request: RunRequest, caps: Capabilities) -> str | None:
        """Why this machine cannot keep the hidden goldens unreadable to the child (None: it
        can). With the namespaces layer they are not mounted; without it the child must run as
        a uid of its own (the user layer) AND the goldens must be unreadable to other users.
        Only `--isolation auto` replays of untrusted code are judged (strict has both layers;
        none is off; golden generation replays the course's own mutants)."""
        if request.mode != "replay" or request.trusted or request.policy.mode != "auto" \
                or caps.namespaces:
            return None
        no_ns = f"no namespaces layer ({caps.why.get('namespaces', 'missing')})"
        if not caps.user:
            return (f"hidden tests NOT RUN: with {no_ns} and no separate uid "
                    f"({caps.why.get('user', 'missing')}), the submitted code could read the "
                    f"hidden goldens; install bubblewrap or run the grader as root")
        if any(readable_by_others(request.assignment.goldens_path(store))
               for store in ("hidden", GRADED_INPUTS)):
            return (f"hidden tests NOT RUN: with {no_ns}, the hidden goldens must be unreadable "
                    f"to other users and they are not (chmod -R go-rwx the course's tests "
                    f"folder, or install bubblewrap)")
        return None

    def __init__(self, run: Path, request: RunRequest, caps: Capabilities):
        self.sandbox = RunSandbox(run, request.policy, caps)
        self.run = run

    def new_output_file(self, path: Path) -> Path:
        return self.sandbox.new_output_file(path)

    def start(self, boot: Path, config: Path, writable: list[Path], forbidden: list[str],
              stdout: Path, stderr: Path) -> Child:
        cmd = self.sandbox.command(boot, config, writable, forbidden)
        with open(stdout, "wb") as out, open(stderr, "wb") as err:
            proc = subprocess.Popen(cmd.argv, env=cmd.env, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=err, cwd=self.run / "work",
                                    start_new_session=True,
                                    preexec_fn=cmd.preexec)  # noqa: PLW1509 (None with prlimit)
        return HostChild(proc)

    def after_child(self) -> None:
        self.sandbox.after_child()

    def close(self) -> None:
        self.sandbox.close()


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the process group `proc` leads, close the pipe to its stdin if it has one, and
    reap `proc` (bounded wait)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if proc.stdin is not None:
        proc.stdin.close()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
