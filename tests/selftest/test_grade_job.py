"""One grading job (grading/job.GradeJob, as bulk makes one per student): it round-trips through JSON
unchanged, its key changes with every field that can change a grade and with no other, the
local job process grades from it alone (the policy's limits included), and a resumed bulk run
regrades a student exactly when their job's key changed."""

import dataclasses
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import SOLUTION
from rich.console import Console

from autograder.backends import Placement
from autograder.classroom.bulk import run_bulk
from autograder.grading.job import KEYED, UNKEYED, GradeJob
from autograder.sandbox import Limits, SandboxPolicy


def a_job(**changes) -> GradeJob:
    job = GradeJob(Path("/class/alice"), Path("/course"), "grade", ("toy",),
                   policy=SandboxPolicy("auto", Limits(), frozenset({"cgroup"})),
                   placement=Placement("host", None), timeout=300.0, work=Path("/out/.work"),
                   submission_hash="a" * 64, course_version="c" * 64)
    return dataclasses.replace(job, **changes)


def with_limit(name: str) -> SandboxPolicy:
    limits = dataclasses.replace(Limits(), **{name: getattr(Limits(), name) + 1})
    return dataclasses.replace(a_job().policy, limits=limits)


# each field that can change a grade, changed once (every limit of the policy on its own)
GRADE_CHANGES = {
    "submission content": {"submission_hash": "b" * 64},
    "course version": {"course_version": "d" * 64},
    "assignments": {"assignments": ("toy", "toy2")},
    "assignment order": {"assignments": ("toy2", "toy")},
    "visibilities": {"visibilities": ("public",)},
    "isolation mode": {"policy": dataclasses.replace(a_job().policy, mode="strict")},
    "disabled layers": {"policy": dataclasses.replace(a_job().policy, disabled=frozenset())},
    "backend": {"placement": Placement("docker", None)},
    "gpus": {"placement": Placement("host", "all")},
    "timeout": {"timeout": 301.0},
    "mode": {"mode": "check", "visibilities": ("public",)},
    "task": {"task": 2},
    "ids": {"ids": frozenset({"test_add"})},
    **{f"limit {f.name}": {"policy": with_limit(f.name)} for f in dataclasses.fields(Limits)},
}
NO_GRADE_CHANGES = {
    "submission path": {"submission": Path("/elsewhere/alice")},
    "course folder": {"course_root": Path("/mnt/course")},
    "output folder": {"work": Path("/other/out/.work")},
    "parallel": {"parallel": 2},
}


def test_every_field_is_keyed_or_not_on_purpose():
    names = {f.name for f in dataclasses.fields(GradeJob)}
    assert set(KEYED) | set(UNKEYED) == names and not set(KEYED) & set(UNKEYED)


def test_a_job_round_trips_unchanged():
    for job in [a_job(), *(a_job(**c) for c in GRADE_CHANGES.values())]:
        data = json.loads(json.dumps(job.to_json()))  # as it travels: JSON text
        assert GradeJob.from_json(data) == job
        assert GradeJob.from_json(data).to_json() == job.to_json()
        assert GradeJob.from_json(data).key() == job.key()
    assert a_job(timeout=300).key() == a_job(timeout=300.0).key()  # one representation


def test_the_whole_policy_travels():
    data = a_job(policy=with_limit("memory")).to_json()["policy"]
    assert data["limits"] == dataclasses.asdict(with_limit("memory").limits)
    assert data["mode"] == "auto" and data["disabled"] == ["cgroup"]


def test_unknown_or_missing_fields_are_refused():
    data = a_job().to_json()
    with pytest.raises(ValueError):
        GradeJob.from_json({**data, "extra": 1})
    with pytest.raises(ValueError):
        GradeJob.from_json({k: v for k, v in data.items() if k != "timeout"})
    with pytest.raises(TypeError):
        GradeJob.from_json({**data, "policy": {**data["policy"],
                                               "limits": {**data["policy"]["limits"], "x": 1}}})


@pytest.mark.parametrize("what", sorted(GRADE_CHANGES))
def test_a_grade_affecting_change_changes_the_key(what):
    assert a_job(**GRADE_CHANGES[what]).key() != a_job().key()


@pytest.mark.parametrize("what", sorted(NO_GRADE_CHANGES))
def test_what_cannot_change_a_grade_keeps_the_key(what):
    assert a_job(**NO_GRADE_CHANGES[what]).key() == a_job().key()


def test_the_job_process_reads_the_job_on_stdin(toy_env, tmp_path):
    """`python -m autograder.classroom.job` grades from the job alone: a file-size limit (kept
    under every isolation mode) too small for the child's events file reaches the child and
    fails every test (argv flags carried the isolation mode only, so a job process graded
    under the default limits)."""
    sub = tmp_path / "alice" / "toy"
    sub.mkdir(parents=True)
    (sub / "__init__.py").write_text(SOLUTION)
    (tmp_path / "work").mkdir()
    job = a_job(submission=sub.parent, course_root=toy_env, work=tmp_path / "work",
                policy=SandboxPolicy.create("none"))

    def grade(job: GradeJob) -> dict:
        # from the job alone: no course root nor temporary folder in the environment
        env = {k: v for k, v in os.environ.items() if k not in ("TRAINING_SYSTEMS_ROOT",
                                                                 "TMPDIR")}
        proc = subprocess.run([sys.executable, "-m", "autograder.classroom.job"], env=env,
                              input=json.dumps(job.to_json()), capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return json.loads(proc.stdout.splitlines()[-1])

    assert grade(job)["score"] == 7
    tiny = dataclasses.replace(job.policy, limits=dataclasses.replace(Limits(), file_size=1))
    assert grade(dataclasses.replace(job, policy=tiny))["score"] == 0


def test_resumed_bulk_run_regrades_exactly_when_a_limit_changes(toy_env, tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    for student in ("alice", "bob"):
        (subs / student / "toy").mkdir(parents=True)
        (subs / student / "toy" / "__init__.py").write_text(SOLUTION)

    def bulk(limits: Limits) -> dict[str, int]:
        run_bulk(subs, ["toy"], out, 2, SandboxPolicy.create(limits=limits),
                 console=Console(file=io.StringIO(), width=200))
        return {s: (out / s / "results.json").stat().st_mtime_ns for s in ("alice", "bob")}

    first = bulk(Limits())
    keys = {s: json.loads((out / s / "grading.json").read_text())["key"] for s in first}
    assert bulk(Limits()) == first  # nothing changed: both skipped
    more_files = dataclasses.replace(Limits(), open_files=Limits().open_files + 1)
    regraded = bulk(more_files)
    assert all(regraded[s] != first[s] for s in first)  # a limit changed: both regraded
    assert all(json.loads((out / s / "grading.json").read_text())["key"] != keys[s]
               for s in first)
    assert bulk(more_files) == regraded  # and skipped again under the same limits


def test_a_local_worker_grades_many_jobs_and_is_replaced_after_a_timeout(toy_env, tmp_path,
                                                                         monkeypatch):
    """classroom/workers.py: one long-lived `job --serve` process grades a thread's jobs in
    turn (same pid); a job past its timeout kills that worker (no process left) and the next
    job gets a fresh one; a job whose grading raises is that student's error."""
    from autograder.classroom.workers import LocalWorkers

    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(toy_env))
    (tmp_path / "work").mkdir()
    jobs = {}
    for student, source in (("alice", SOLUTION), ("bob", SOLUTION.replace("a + b", "a - b")),
                            ("slow", "import time\ntime.sleep(600)\n" + SOLUTION)):
        (tmp_path / student / "toy").mkdir(parents=True)
        (tmp_path / student / "toy" / "__init__.py").write_text(source)
        jobs[student] = a_job(submission=str(tmp_path / student), course_root=str(toy_env),
                              work=str(tmp_path / "work"), policy=SandboxPolicy.create("none"))
    workers = LocalWorkers()
    try:
        alice, error = workers(jobs["alice"])
        assert error is None and alice["score"] == 7
        first = workers.local.worker.proc.pid
        bob, error = workers(jobs["bob"])
        assert error is None and bob["score"] < 7 and workers.local.worker.proc.pid == first
        slow = dataclasses.replace(jobs["slow"], timeout=3.0)
        results, error = workers(slow)
        assert results is None and error == "grading took longer than 3 s"
        assert not os.path.exists(f"/proc/{first}")
        again, error = workers(jobs["alice"])
        assert error is None and again["score"] == 7 and workers.local.worker.proc.pid != first
        broken = dataclasses.replace(jobs["alice"], assignments=("nosuch",))
        results, error = workers(broken)
        assert results is None and error.startswith("grading failed: "), error
    finally:
        workers.close()
    assert workers.workers == []
