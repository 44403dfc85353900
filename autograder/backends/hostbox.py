"""The host backend's cold chain: `HostBox` is the `ChildBox` the runner drives for a child that
starts as a fresh `python` inside `autograder.sandbox` (the docker backend's `ContainerBox` is
another; backends/warmbox.py's `WarmBox` extends it)."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from ..assignments import Visibility
from ..sandbox import Capabilities, IsolationMode, RunSandbox, readable_by_others
from .base import Child, RunMode, RunRequest


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
        """Why this machine cannot keep a grading's secrets from the child (None: it can):
        the expected values of its draw, which the reference solution computes (so the
        solutions too), and the hidden goldens. With the namespaces layer none is mounted;
        without it the child must run as a uid of its own (the user layer: it cannot read the
        grader's memory or run folders) AND the hidden goldens and the solutions must be
        unreadable to other users. Only `--isolation auto` replays of untrusted code are judged
        (strict has both layers; none is off; golden generation replays the course's own
        mutants)."""
        if request.mode != RunMode.REPLAY or request.trusted \
                or request.policy.mode != IsolationMode.AUTO \
                or caps.namespaces:
            return None
        no_ns = f"no namespaces layer ({caps.why.get('namespaces', 'missing')})"
        if not caps.user:
            return (f"graded tests NOT RUN: with {no_ns} and no separate uid "
                    f"({caps.why.get('user', 'missing')}), the submitted code could read the "
                    f"expected values; install bubblewrap or run the grader as root")
        a = request.assignment
        if any(readable_by_others(p) for p in (a.goldens_path(Visibility.HIDDEN),
                                              a.solutions / a.package)):
            return (f"graded tests NOT RUN: with {no_ns}, the hidden goldens and the solutions "
                    f"must be unreadable to other users and they are not (chmod -R go-rwx the "
                    f"course's tests and solutions folders, or install bubblewrap)")
        return None

    def __init__(self, run: Path, request: RunRequest, caps: Capabilities):
        self.sandbox = RunSandbox(run, request.policy, caps)
        self.run = run

    def new_output_file(self, path: Path) -> Path:
        return self.sandbox.new_output_file(path)

    def start(self, boot: Path, config: Path, writable: list[Path], forbidden: list[str],
              stdout: Path, stderr: Path) -> Child:
        cmd = self.sandbox.command(boot, config, writable, forbidden)
        try:
            with open(stdout, "wb") as out, open(stderr, "wb") as err:
                proc = subprocess.Popen(cmd.argv, env=cmd.env, stdin=subprocess.DEVNULL,
                                        stdout=out, stderr=err, cwd=self.run / "work",
                                        start_new_session=True, pass_fds=cmd.pass_fds,
                                        preexec_fn=cmd.preexec)  # noqa: PLW1509 (None with prlimit)
        finally:
            cmd.close()
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
