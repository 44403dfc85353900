"""`bulk --dask` on a real Dask cluster: a `dask scheduler` and two `dask worker --nworkers 1
--nthreads 1` processes on loopback (free ports), grading the toy course. Its grades.csv,
Canvas export, results, run log and resume behaviour equal a local run's."""

import csv
import json
import socket
from pathlib import Path

import pytest
from distributed import Client
from helpers import SOLUTION, processes_mentioning

from autograder import cli
from autograder.assignments import load
from autograder.classroom.dask_executor import loopback_cluster

TOY = Path(__file__).parent / "toy_course"
WRONG_ADD = SOLUTION.replace("return a + b", "return a - b")
DESCENDING = SOLUTION.replace("key=lambda i: xs[i])", "key=lambda i: -xs[i])")




def _ours(marker: str) -> list[int]:
    """Processes (not this one) whose command line or folder mentions `marker`."""
    return processes_mentioning(marker, ("cmdline", "cwd"))


@pytest.fixture
def cluster(tmp_path):
    folder = tmp_path / "dask"
    with loopback_cluster(folder, workers=2, timeout=90) as address:
        assert address.startswith("tcp://127.0.0.1:")
        yield address
    assert _ours(str(folder)) == [], "a dask process outlived the cluster"


def package(root: Path, source: str, *inner: str) -> None:
    pkg = root.joinpath(*inner, "toy")
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(source)


def bulk(subs: Path, out: Path, *extra: str) -> None:
    assert cli.main(["bulk", str(subs), "--assignment", "toy", "--out", str(out), *extra]) == 0


def results(out: Path) -> dict[str, dict]:
    """Each student's results.json, without its execution time."""
    found = {}
    for path in sorted(out.glob("*/results.json")):
        data = json.loads(path.read_text())
        data.pop("execution_time")
        found[path.parent.name] = data
    return found


def run_log(out: Path) -> list[tuple]:
    lines = [json.loads(line) for line in (out / "run_log.jsonl").read_text().splitlines()]
    return sorted((e["student"], e["hash"], e["score"], tuple(e["problems"])) for e in lines)


def scores(results: dict) -> dict[str, float]:
    return {t["name"]: t["score"] for t in results["tests"]}


def mtimes(out: Path) -> dict[str, int]:
    return {p.parent.name: p.stat().st_mtime_ns for p in out.glob("*/results.json")}


def finished_jobs(address: str) -> int:
    """How many bulk jobs the scheduler saw finish (tasks of dask_executor.worker_job)."""

    def count(dask_scheduler) -> int:
        return sum(1 for key, _, finish, *_ in dask_scheduler.transition_log
                   if str(key).startswith("worker_job-") and finish == "memory")

    with Client(address, timeout=30, set_as_default=False) as client:
        return client.run_on_scheduler(count)


def test_dask_run_equals_local_run_and_resumes_alike(toy_env, tmp_path, cluster, capsys):
    subs = tmp_path / "subs"
    package(subs / "alice", SOLUTION)
    package(subs / "bob", WRONG_ADD)
    package(subs / "carol", DESCENDING)
    package(subs / "dave", SOLUTION, "homework", "src")  # rejected: nested two folders deep
    local, remote = tmp_path / "local", tmp_path / "remote"
    bulk(subs, local, "--jobs", "2")
    bulk(subs, remote, "--dask", cluster)
    assert "dask: 2 workers, 2 threads at tcp://127.0.0.1:" in capsys.readouterr().out
    assert finished_jobs(cluster) == 4  # graded on the workers, not here
    for name in ("grades.csv", "canvas.csv"):
        assert (remote / name).read_bytes() == (local / name).read_bytes(), name
    table = {r["student"]: float(r["score"]) for r in csv.DictReader(open(remote / "grades.csv"))}
    assert table == {"alice": 7, "bob": 5, "carol": table["carol"], "dave": 0}
    assert table["carol"] < 7
    assert results(remote) == results(local) and len(results(remote)) == 4
    assert run_log(remote) == run_log(local) and len(run_log(remote)) == 4
    assert not (remote / ".work").exists() and not list(remote.rglob("*.partial"))

    stamp = mtimes(remote)
    bulk(subs, remote, "--dask", cluster)  # nothing changed: nothing regraded
    bulk(subs, remote, "--jobs", "2")  # a local run resumes from the Dask run's results too
    assert mtimes(remote) == stamp and len(run_log(remote)) == 4
    (subs / "bob" / "toy" / "__init__.py").write_text(SOLUTION)  # a resubmission
    bulk(subs, remote, "--dask", cluster)
    assert finished_jobs(cluster) == 5
    changed = {s for s, t in mtimes(remote).items() if t != stamp[s]}
    assert changed == {"bob"} and len(run_log(remote)) == 5
    bob = json.loads((remote / "bob" / "results.json").read_text())
    assert bob["score"] == 7 and scores(bob) == scores(results(local)["alice"])


def test_unreachable_scheduler_is_one_line(toy_env, tmp_path, capsys):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    package(tmp_path / "subs" / "alice", SOLUTION)
    code = cli.main(["bulk", str(tmp_path / "subs"), "--assignment", "toy",
                     "--out", str(tmp_path / "out"), "--dask", f"tcp://127.0.0.1:{port}"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:")
    assert err.count("\n") == 1
    assert not (tmp_path / "out" / "alice").exists()


def test_a_worker_on_another_course_version_refuses(toy_env, tmp_path):
    """worker_job as a worker runs it (no cluster needed): a stale version never grades."""
    from autograder.backends import Placement
    from autograder.classroom.dask_executor import worker_job
    from autograder.classroom.executors import course_version
    from autograder.grading.job import GradeJob
    from autograder.sandbox import SandboxPolicy

    package(tmp_path / "alice", SOLUTION)
    (tmp_path / "work").mkdir()
    job = GradeJob(tmp_path / "alice", toy_env, "grade", ("toy",),
                   policy=SandboxPolicy.create(), placement=Placement(), timeout=60,
                   work=tmp_path / "work", submission_hash="a" * 64, course_version="0" * 64)
    results, error = worker_job(job.to_json())
    assert results is None and "has another course version" in error
    assert course_version([load("toy", toy_env)]) != "0" * 64
    assert list((tmp_path / "work").iterdir()) == []
