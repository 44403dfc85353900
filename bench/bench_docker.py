"""The docker backend: runner image size, container start overhead per submission (a ratio to
the host sandbox on the same submission), bulk throughput with 2 containers at a time vs 1.

Needs podman (the image is built or found in ~/.cache/training-systems, and podman's Docker
API is started on a private socket); rows say "not measured" otherwise.

    python bench/bench_docker.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchrows import not_measured, print_rows, row  # noqa: E402

from autograder.backends import Placement  # noqa: E402
from autograder.sandbox import SandboxPolicy  # noqa: E402

REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
SUBMISSION = ROOT / "examples" / "complete.zip"
ASSIGNMENT = "minigrad"


def _job(placement: Placement):
    from autograder.assignments import course_root
    from autograder.grading.job import GradeJob

    return GradeJob(SUBMISSION, course_root(), "grade", (ASSIGNMENT,),
                    policy=SandboxPolicy.create("auto"), placement=placement)


def _median_grade(placement: Placement) -> float:
    from autograder.grading import pipeline

    times = []
    for _ in range(REPEATS):
        started = time.monotonic()
        pipeline.grade(_job(placement))
        times.append(time.monotonic() - started)
    return statistics.median(times)


def _throughput(placement: Placement, jobs: int, n: int = 4) -> float:
    from autograder.grading import pipeline

    started = time.monotonic()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(lambda _: pipeline.grade(_job(placement)), range(n)))
    return n / (time.monotonic() - started)


def rows() -> list[dict]:
    from autograder.backends import docker_image

    problem = docker_image.podman_problem()
    if problem:
        return [not_measured("docker", "runner image, container overhead, throughput", problem)]
    podman = docker_image.Podman()
    tag = docker_image.build_runner(podman, "cpu")
    size = podman.run("image", "inspect", "--format", "{{.Size}}", tag, capture_output=True,
                      text=True).stdout.strip()
    out = [row("docker", "CPU runner image size", int(size) / 1e6, "MB",
               note="interpreter + pinned runtime wheels (torch CPU)")]
    with docker_image.PodmanService(podman) as svc:
        os.environ["DOCKER_HOST"] = svc.url
        host, docker = Placement("host"), Placement("docker")
        t_host, t_docker = _median_grade(host), _median_grade(docker)
        out.append(row("docker", f"grade one submission ({ASSIGNMENT}, public + hidden)",
                       t_docker, "s", peer=t_host, peer_name="host sandbox (bubblewrap)",
                       note=f"median of {REPEATS}; lower is better"))
        one, two = _throughput(docker, 1), _throughput(docker, 2)
        out.append(row("docker", f"bulk throughput, 2 containers at a time ({ASSIGNMENT})", two,
                       "subs/s", peer=one, peer_name="1 at a time",
                       note="higher is better; 2 cores"))
    return out


if __name__ == "__main__":
    print_rows(rows())
