"""The local executor: long-lived grading processes, one per pool thread of a bulk run.

Each is `python -m autograder.classroom.job --serve`: it reads one `GradeJob` per line on its
stdin and answers one line each (`{"results": ...}` or `{"error": ...}`), so its warm zygotes
(backends/warmbox.py) serve every student it grades instead of one: a class pays the
interpreter's imports once per worker, not once per student. A student's job is still graded
in sandboxed children of its own; the worker holds only the grader's side. A job past its
timeout kills its worker (and with it every process it started) and the next job gets a fresh
one, as does a job whose worker died, after MAX_JOBS jobs, or one whose course or temporary
folder differs from the worker's. `close` ends them all; each also dies with the bulk process
(PR_SET_PDEATHSIG). `stop` (bulk interrupted) ends them all too and starts no other: a job
still asked for is answered STOPPED at once.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time

from ..grading.job import GradeJob

MAX_JOBS = 64  # then the worker is replaced (bounded drift of its state and memory)
STOPPED = "not graded: the run was stopped"


class Worker:
    """One `job --serve` process."""

    def __init__(self, job: GradeJob):
        self.key = (job.course_root, job.work)
        self.jobs = 0
        work = job.work if job.work is not None and job.work.is_dir() else None
        self.stderr = tempfile.TemporaryFile(dir=work)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "autograder.classroom.job", "--serve", "--parent",
             str(os.getpid())], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.stderr, start_new_session=True)

    def grade(self, job: GradeJob) -> tuple[dict | None, str | None]:
        self.jobs += 1
        try:
            self.proc.stdin.write((json.dumps(job.to_json()) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            return None, f"grading failed: {self.tail()}"
        line = self.read_line(time.monotonic() + job.timeout)
        if line is None:
            self.kill()
            return None, f"grading took longer than {job.timeout:.0f} s"
        if not line:
            return None, f"grading failed: {self.tail()}"
        try:
            answer = json.loads(line)
        except ValueError as e:
            return None, f"grading printed no result ({e})"
        return answer.get("results"), answer.get("error")

    def read_line(self, deadline: float) -> bytes | None:
        """The next line of stdout (b"" at its end), or None past the deadline."""
        out, chunks = self.proc.stdout.fileno(), []
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([out], [], [], left)[0]:
                return None
            chunk = os.read(out, 1 << 20)
            if not chunk:
                return b""
            chunks.append(chunk)
            if chunk.endswith(b"\n"):
                return b"".join(chunks)

    def tail(self) -> str:
        self.stderr.seek(0)
        lines = self.stderr.read().decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else "no output"

    def usable(self, job: GradeJob) -> bool:
        return self.proc.poll() is None and self.jobs < MAX_JOBS and \
            self.key == (job.course_root, job.work)

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.stderr):
            try:
                f.close()
            except OSError:
                pass


class LocalWorkers:
    """An executor (executors.Executor): each calling thread's job goes to that thread's own
    worker; (results.json, None) or (None, a one-line error)."""

    def __init__(self):
        self.local = threading.local()
        self.lock = threading.Lock()
        self.workers: list[Worker] = []
        self.stopped = False

    def __call__(self, job: GradeJob) -> tuple[dict | None, str | None]:
        worker = getattr(self.local, "worker", None)
        if worker is None or not worker.usable(job):
            if worker is not None:
                self.retire(worker)
            worker = self.local.worker = self.start(job)
            if worker is None:
                return None, STOPPED
        result = worker.grade(job)
        if worker.proc.poll() is not None:
            self.retire(worker)
            self.local.worker = None
        return result

    def start(self, job: GradeJob) -> Worker | None:
        """A new worker for this thread, or None once `stop` was called."""
        if self.stopped:
            return None
        worker = Worker(job)
        with self.lock:
            if not self.stopped:
                self.workers.append(worker)
                return worker
        worker.kill()
        return None

    def retire(self, worker: Worker) -> None:
        worker.kill()
        with self.lock:
            if worker in self.workers:
                self.workers.remove(worker)

    def close(self) -> None:
        """Kill every worker (and with it what it started: its sandboxed children's holders
        end with the pipe it held, their forks with the holders' PID namespaces)."""
        with self.lock:
            workers, self.workers = self.workers, []
        for worker in workers:
            worker.kill()

    def stop(self) -> None:
        """Kill every worker now and start no other (a job still asked for: STOPPED)."""
        with self.lock:
            self.stopped = True
        self.close()
