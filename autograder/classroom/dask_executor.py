"""`bulk --dask SCHEDULER`: each student's `GradeJob` (grading/job.py), as the JSON data its
`to_json` gives, runs on a worker of a Dask distributed cluster, which rebuilds it and runs it
as the local executor does (executors.run_job: `python -m autograder.classroom.job` in a child
process); everything else (resume by the job's key, atomic results, run log, grades.csv,
reports) stays in the bulk run, unchanged, so a Dask run's output equals a local run's.

Workers must run this engine and see the submissions, the course and OUT/.work at the bulk run's
paths (the same machine, or a shared filesystem at the same mount point). Each job checks that
the worker's course version (tests, goldens, engine: executors.course_version) is the job's and
fails with a one-line error otherwise, so a stale worker never grades silently. As many jobs are
in flight as the cluster had worker threads when the run started.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from distributed import Client
from distributed.comm.addressing import parse_address, parse_host_port

from .. import settings
from ..assignments import load
from ..grading.job import GradeJob
from .executors import BulkError, course_version, run_job
from .workers import STOPPED, LocalWorkers

CONNECT_TIMEOUT = 20  # seconds to reach the scheduler and see a worker
RESULT_SLACK = 120  # seconds a job's result may lag its own timeout (transfer, scheduling)


def worker_job(data: dict) -> tuple[dict | None, str | None]:
    """On a worker: the job `data` (GradeJob.to_json) rebuilt and graded by the Dask worker's
    own long-lived grading processes (workers.LocalWorkers, kept on the worker object, so
    their warm zygotes serve every job it runs), after checking that the worker's course has
    the job's version. Outside a Dask worker: a one-job process (run_job)."""
    job = GradeJob.from_json(data)
    theirs = course_version([load(n, job.course_root) for n in job.assignments])
    if theirs != job.course_version:
        return None, (f"dask worker on {socket.gethostname()} has another course version "
                      f"(engine, tests or goldens differ from the bulk run's)")
    try:
        from distributed import get_worker

        worker = get_worker()
    except ValueError:  # not on a Dask worker
        return run_job(job)
    pool = getattr(worker, "training_systems_graders", None)
    if pool is None:
        pool = worker.training_systems_graders = LocalWorkers()
    return pool(job)


class DaskRun:
    """An executor (executors.Executor): run_job on the cluster behind `client`. `stop` (bulk
    interrupted) cancels every job in flight and submits no other: a job still waiting on the
    scheduler never starts; one a worker already runs finishes there, unread (Dask cannot
    kill a running task; its worker's grader stays warm for the next run)."""

    def __init__(self, client):
        self.client = client
        self.lock = threading.Lock()
        self.pending: set = set()
        self.stopped = False

    def __call__(self, job: GradeJob) -> tuple[dict | None, str | None]:
        with self.lock:
            if self.stopped:
                return None, STOPPED
            future = self.client.submit(worker_job, job.to_json(), pure=False)
            self.pending.add(future)
        try:
            return future.result(timeout=job.timeout + RESULT_SLACK)
        except Exception as e:  # a lost worker, a timeout, a worker-side crash: one line
            future.cancel()
            first = (str(e).strip().splitlines() or [""])[0]
            return None, f"dask: {type(e).__name__}: {first}"
        finally:
            with self.lock:
                self.pending.discard(future)

    def stop(self) -> None:
        with self.lock:
            self.stopped, futures = True, list(self.pending)
        if futures:
            self.client.cancel(futures)


def probe(address: str) -> None:
    """Fail at once (OSError) when nothing listens at a tcp:// address: the Dask client would
    retry for its whole timeout."""
    scheme, location = parse_address(address)
    if scheme == "tcp":
        socket.create_connection(parse_host_port(location), timeout=CONNECT_TIMEOUT).close()


@contextmanager
def dask_run(address: str) -> Iterator[tuple[DaskRun, int, str]]:
    """(the job runner, how many jobs to keep in flight, a line describing the cluster) for
    the scheduler at `address`; BulkError when it cannot be reached or has no worker."""
    try:
        probe(address)
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise BulkError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    try:
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
        except TimeoutError:
            raise BulkError(f"the Dask scheduler at {address} has no worker "
                            f"(waited {CONNECT_TIMEOUT} s)") from None
        threads = client.nthreads()
        line = (f"dask: {len(threads)} workers, {sum(threads.values())} threads at "
                f"{client.scheduler.address}")
        yield DaskRun(client), sum(threads.values()), line
    finally:
        client.close()


@contextmanager
def loopback_cluster(folder: Path, workers: int = 2, timeout: float = 90) -> Iterator[str]:
    """A real `dask scheduler` and `workers` `dask worker --nworkers 1 --nthreads 1` processes
    on 127.0.0.1 (ports chosen free by the OS), from this venv, their files and logs under
    `folder`; yields the scheduler's address once every worker has joined. On exit each process
    group is sent SIGTERM, then SIGKILL after 10 s, and waited for. For trying --dask on one
    machine, the self-tests and the bench."""
    dask = Path(sys.executable).with_name("dask")
    dask = str(dask) if dask.exists() else (shutil.which("dask") or "dask")
    folder.mkdir(parents=True, exist_ok=True)
    info = folder / "scheduler.json"
    procs: list[subprocess.Popen] = []

    scratch = folder / "tmp"  # the processes' temporary files (dask-scratch-space, ...)
    scratch.mkdir(exist_ok=True)
    env = settings.inherited_environment(TMPDIR=str(scratch))

    def start(name: str, *args: str) -> None:
        with open(folder / f"{name}.log", "wb") as log:
            procs.append(subprocess.Popen([dask, *args], cwd=folder, env=env, stdout=log,
                                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                          start_new_session=True))

    try:
        start("scheduler", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", str(info))
        deadline = time.monotonic() + timeout
        while True:
            try:
                address = json.loads(info.read_text())["address"]
                break
            except (OSError, ValueError, KeyError):
                if procs[0].poll() is not None or time.monotonic() > deadline:
                    log = (folder / "scheduler.log").read_text(errors="replace")[-500:]
                    raise BulkError(f"dask scheduler did not start: {log}") from None
                time.sleep(0.1)
        for i in range(workers):
            start(f"worker{i}", "worker", address, "--nworkers", "1", "--nthreads", "1",
                  "--host", "127.0.0.1", "--no-dashboard", "--memory-limit", "0",
                  "--name", f"worker{i}", "--local-directory", str(folder / f"worker{i}"))
        with Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False) as client:
            try:
                client.wait_for_workers(workers, timeout=max(1.0, deadline - time.monotonic()))
            except TimeoutError:
                raise BulkError(f"{workers} dask workers did not join within {timeout:.0f} s") from None
        yield address
    finally:
        for proc in reversed(procs):  # workers first, the scheduler last
            _signal_group(proc.pid, signal.SIGTERM)
        for proc in reversed(procs):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            _signal_group(proc.pid, signal.SIGKILL)  # what is left of the group (a worker
            proc.wait(timeout=10)  # process its nanny left behind), then until it is gone
            deadline = time.monotonic() + 10
            while _signal_group(proc.pid, 0) and time.monotonic() < deadline:
                time.sleep(0.05)


def _signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to the process group `pgid`; whether any process was there to get it."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    return True
