"""The warm path (backends/warmbox.py, backends/zygote.py): graded children are forks of a
zygote that enter the sandbox bubblewrap built around a holder.

Parity: warm and cold give the same results.json (timings aside) on the toy course and on
real assignments (solution, starter, a mutant). Attacks (tests/selftest/adversarial/warm_*.py)
on what a fork could reach of the zygote, the host or other runs: each is shown to get
through a deliberately broken entering sequence (a zygote with steps left out:
broken_zygote.py, started in place of the real one) and to fail against the real one. The
rest of the adversarial corpus runs on the warm path in test_sandbox.py (the host backend's
default where the probe passes).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import tempfile
from pathlib import Path

import pytest
from helpers import SOLUTION, command_lines, grade_results, grade_root, submission

from autograder import sandbox, settings
from autograder.assignments import load
from autograder.backends import holder, host, warmbox
from autograder.backends.base import Status
from autograder.grading import pipeline
from autograder.grading.report import results_json

HERE = Path(__file__).parent
ATTACKS = HERE / "adversarial"
BROKEN_ZYGOTE = HERE / "broken_zygote.py"
POLICY = sandbox.SandboxPolicy.create()
WHY_NOT = warmbox.probe(POLICY)  # each test turns the switch on or off itself
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=f"no warm path here: {WHY_NOT}")


def graded(assignment, root: Path, warm: bool, monkeypatch) -> tuple[str, dict]:
    """(the path that ran, results.json without its timing) of grading `root`."""
    monkeypatch.setenv(settings.WARM.name, "1" if warm else "0")
    grade = grade_root(assignment, root, policy=POLICY)
    data = results_json([grade], 0.0)
    path = data["extra_data"]["autograder"]["paths"].pop(assignment.name, "none")
    assert path == (grade.run.path if grade.run else "none")  # results.json says which ran
    return path, data


def assert_parity(assignment, root: Path, monkeypatch) -> None:
    warm_path, warm = graded(assignment, root, True, monkeypatch)
    cold_path, cold = graded(assignment, root, False, monkeypatch)
    # warm: every child, or all but a process's first lone child of the assignment ("mixed")
    assert warm_path in ("warm", "mixed") and cold_path == "cold"
    assert warm == cold


def test_toy_parity(toy, tmp_path, monkeypatch):
    mutant = SOLUTION.replace("return a + b", "return a - b")
    assert mutant != SOLUTION
    for root in (toy.solutions, toy.starter, submission(tmp_path, mutant)):
        assert_parity(toy, root, monkeypatch)


def test_minigrad_parity(tmp_path, monkeypatch):
    minigrad = load("minigrad")
    mutant = tmp_path / "mutant"
    shutil.copytree(minigrad.solutions / "minigrad", mutant / "minigrad")
    engine = mutant / "minigrad" / "engine.py"
    text = engine.read_text()
    engine.write_text(text.replace("(1.0 - out.data**2)", "(1.0 - out.data)"))
    assert engine.read_text() != text
    for root in (minigrad.solutions, minigrad.starter, mutant):
        assert_parity(minigrad, root, monkeypatch)


@pytest.mark.parametrize("course", ["toy", "scaling", "ad_modes"])
def test_mutant_records_parity(course, toy, tmp_path, monkeypatch):
    """On the course's own mutants (toy; scaling with numpy and scipy preloaded; ad_modes,
    whose child view replaces torch.func and torch.autograd.functional, which its zygote
    imports through the same view), every test's status, outcome, exception and observations
    are the same warm and cold. A test that ran into its limit on either path is timing, not
    parity: scaling's mean_not_sum fits for 15x the reference's time, about the 2 s floor on a
    slower CPU than the goldens' (it timed out on one path only under load); at least half of
    each mutant's tests are compared."""
    from autograder.authoring.mutants import load_mutants, materialize
    from autograder.backends import base, run
    from autograder.grading import store

    assignment = toy if course == "toy" else load(course)
    plan = base.TestPlan.from_stores(store.load_stores(assignment))
    for i, mutant in enumerate(load_mutants(assignment)[:2]):
        impl = materialize(assignment, mutant, tmp_path / str(i))
        request = base.RunRequest(assignment, impl, "replay", plan, POLICY)
        outcomes, timed_out = {}, set()
        for switch in ("1", "0"):
            monkeypatch.setenv(settings.WARM.name, switch)
            result = run(request)
            outcomes[result.path] = {i: (r.status, r.outcome, r.error_type, r.error_kind, r.obs)
                                     for i, r in result.records.items()}
            timed_out |= {i for i, r in result.records.items() if r.status == Status.TIMEOUT}
        assert set(outcomes) == {"warm", "cold"} and outcomes["warm"], mutant.name
        compared = {path: {i: o for i, o in by_id.items() if i not in timed_out}
                    for path, by_id in outcomes.items()}
        assert len(compared["warm"]) >= len(outcomes["warm"]) / 2, (mutant.name, timed_out)
        assert compared["warm"] == compared["cold"], mutant.name


EXAMPLES = HERE.parents[1] / "examples"


@pytest.mark.parametrize("name", ["minigrad", "ad_modes", "bpe", "dedup", "scaling", "ddp",
                                  "repro", "fusion"])
def test_classic_bugs_example_parity(name, monkeypatch):
    """The bundled classic-bugs example (every assignment: failing tests, hints, feedback runs
    on the published inputs, hidden tests) gives the same results.json warm and cold. The
    zygote is started first (a process's first lone child starts cold). A test that ran past
    its limit on either path is timing, not parity (a cold child pays the imports a warm one
    does not, on a loaded machine slower than the goldens'): it is left out, with the totals
    it changes; every other test must match, and a difference names the test with both
    results."""

    assignment = load(name)
    monkeypatch.setenv(settings.WARM.name, "1")
    assert host.BACKEND.warm_zygotes().get(assignment) is not None  # started, if not already
    ran_out: set[str] = set()  # test ids that ran into a limit in some run (a hidden test's
    run = pipeline._run  # output is redacted: "Hidden test failed." says nothing of how)

    def watched(job, request):
        result = run(job, request)
        ran_out.update(i for i, r in result.records.items() if r.status == Status.TIMEOUT)
        return result

    monkeypatch.setattr(pipeline, "_run", watched)
    out = {}
    for switch in ("1", "0"):
        monkeypatch.setenv(settings.WARM.name, switch)
        data = grade_results(EXAMPLES / "classic-bugs.zip", [name], POLICY).gradescope()
        data["execution_time"] = 0
        out[switch] = data
    paths = {s: d["extra_data"]["autograder"]["paths"].pop(name) for s, d in out.items()}
    assert paths == {"1": "warm", "0": "cold"}, paths
    tests = {s: {t["name"]: t for t in d.pop("tests")} for s, d in out.items()}
    timing = {n for by_name in tests.values() for n, t in by_name.items()
              if "time limit" in t.get("output", "") or "timed out" in t.get("output", "")
              or t["extra_data"]["autograder"]["test_id"] in ran_out}
    differing = {n: (tests["1"].get(n), tests["0"].get(n)) for n in tests["1"].keys()
                 | tests["0"].keys() if n not in timing and tests["1"].get(n) != tests["0"].get(n)}
    assert not differing, json.dumps(differing, indent=1)
    assert len(timing) <= len(tests["1"]) / 4, sorted(timing)
    if timing:  # the score and the per-task summary count the tests left out
        for data in out.values():
            data.pop("score"), data.pop("output")
    assert out["1"] == out["0"]


def zygote_pid(toy, monkeypatch) -> int:
    """The toy's zygote in this process (started by grading the solution warm)."""
    graded(toy, toy.solutions, True, monkeypatch)
    zygote = host.BACKEND.zygotes.get(toy)
    assert zygote is not None and zygote.alive()
    return zygote.proc.pid


@contextlib.contextmanager
def entering_sequence(toy, tmp_path: Path, monkeypatch, leave_out: tuple[str, ...]):
    """The toy's zygote runs the real entering sequence, or (`leave_out`) one with those steps
    left out (broken_zygote.py, started in place of the real zygote for the block and stopped
    after it); yields that zygote's pid."""
    real = warmbox.ZYGOTE
    if leave_out:
        script = tmp_path / "broken_zygote_main.py"
        script.write_text(f"import runpy\nrunpy.run_path({str(BROKEN_ZYGOTE)!r}, run_name="
                          f"'__main__', init_globals={{'LEAVE_OUT': {sorted(leave_out)!r}}})\n")
        host.BACKEND.warm_zygotes().close()  # the real one goes: the next starts broken
        monkeypatch.setattr(warmbox, "ZYGOTE", script)
    try:
        yield zygote_pid(toy, monkeypatch)
    finally:
        if leave_out:
            monkeypatch.setattr(warmbox, "ZYGOTE", real)
            host.BACKEND.zygotes.close()  # the broken one goes


def run_attack(toy, tmp_path: Path, name: str, pid: int, leave_out: tuple[str, ...] = (),
               **fill: str) -> tuple[dict, object]:
    """Grade the attack file `name` warm, forked by the zygote `pid` (its __ZYGOTE_PID__);
    (what its test_add reported, or {}; the grade)."""
    source = (ATTACKS / f"{name}.py").read_text()
    for key, value in {"ZYGOTE_PID": str(pid), **fill}.items():
        source = source.replace(f"__{key}__", value)
    sub = submission(tmp_path, source, f"{name}-{'-'.join(leave_out) or 'real'}")
    grade = grade_root(toy, sub, policy=POLICY)
    assert grade.run.path == "warm" or (leave_out and grade.run.path == "mixed"), grade.problems
    message = next(t.message for t in grade.tests if t.id == "test_add")
    seen = json.loads(message.split("SEEN")[1]) if "SEEN" in message else {"?": [message, *grade.problems]}
    return seen, grade


def attack(toy, tmp_path: Path, name: str, monkeypatch, leave_out: tuple[str, ...],
           **fill: str) -> tuple[dict, object]:
    """run_attack on the entering sequence less `leave_out`."""
    with entering_sequence(toy, tmp_path, monkeypatch, leave_out) as pid:
        return run_attack(toy, tmp_path, name, pid, leave_out, **fill)


# what the probe reports -> a broken entering sequence it gets through
BROKEN = {
    # (without the second fork the harness cannot start a thread: its PID namespace for
    # children is not its own; so the broken sequence stays in the host's namespaces)
    "zygote_memory": ("setns", "chroot", "uid", "caps"),
    "fds": ("close_fds",),
    # (the slot uid cannot read the host's interpreter under /root: it stays root)
    "host_root": ("setns", "chroot", "uid", "caps"),
    "other_runs": ("setns", "chroot", "uid", "caps"),
    "processes": ("setns", "chroot", "uid", "caps"),
    "userns": ("seccomp", "chroot"),
}


@pytest.fixture
def probe_fill():
    canary_dir = Path(tempfile.mkdtemp(prefix="warm-host-"))
    os.chmod(canary_dir, 0o755)
    (canary_dir / "canary.txt").write_text("untouched\n")
    os.chmod(canary_dir / "canary.txt", 0o644)
    decoy = Path(tempfile.mkdtemp(prefix="grade-decoy-"))
    os.chmod(decoy, 0o755)
    yield {"CANARY": str(canary_dir / "canary.txt"), "DECOY": str(decoy)}
    shutil.rmtree(canary_dir, ignore_errors=True)
    shutil.rmtree(decoy, ignore_errors=True)


def test_probe_attacks_fail(toy, tmp_path, monkeypatch, probe_fill):
    seen, _ = attack(toy, tmp_path, "warm_probe", monkeypatch, (), **probe_fill)
    assert seen, "the probe did not report"
    assert {k: v for k, v in seen.items() if k != "rng" and v} == {}
    again, _ = attack(toy, tmp_path / "again", "warm_probe", monkeypatch, (), **probe_fill)
    assert again["rng"][1] != seen["rng"][1], "two children share numpy's RNG state"


@pytest.mark.parametrize("what", sorted(BROKEN))
def test_probe_attack_gets_through_a_broken_sequence(toy, tmp_path, monkeypatch, probe_fill,
                                                     what):
    seen, _ = attack(toy, tmp_path, "warm_probe", monkeypatch, BROKEN[what], **probe_fill)
    assert seen.get(what), f"{what} did not get through {BROKEN[what]}: {seen}"


def test_rng_shared_without_reseed(toy, tmp_path, monkeypatch, probe_fill):
    with entering_sequence(toy, tmp_path, monkeypatch, ("reseed",)) as pid:
        one, _ = run_attack(toy, tmp_path, "warm_probe", pid, ("reseed",), **probe_fill)
        two, _ = run_attack(toy, tmp_path / "two", "warm_probe", pid, ("reseed",), **probe_fill)
    assert one["rng"][1] == two["rng"][1]  # numpy's global state, as the zygote left it


@pytest.mark.parametrize("leave_out", [(), ("setns", "chroot", "uid", "caps")],
                         ids=["real", "broken"])
def test_kill_zygote(toy, tmp_path, monkeypatch, leave_out):
    with entering_sequence(toy, tmp_path, monkeypatch, leave_out) as pid:
        run_attack(toy, tmp_path, "warm_kill_zygote", pid, leave_out)
        zygote = host.BACKEND.zygotes.get(toy, start=False)
        alive = zygote is not None and zygote.proc.pid == pid
    if leave_out:
        assert not alive, "the broken sequence did not let the fork kill its zygote"
    else:
        assert alive, "the zygote was killed or replaced"
    assert graded(toy, toy.solutions, True, monkeypatch)[1]["score"] == 7  # the next student


@pytest.mark.parametrize("leave_out", [(), ("cgroup", "setns", "chroot", "uid", "caps")],
                         ids=["real", "broken"])
def test_linger(toy, tmp_path, monkeypatch, leave_out):
    marker = f"warm-linger-{os.getpid()}-{len(leave_out)}"
    attack(toy, tmp_path, "warm_linger", monkeypatch, leave_out, MARKER=marker)
    left = [pid for pid, argv in command_lines().items() if marker.encode() in argv]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert bool(left) == bool(leave_out), f"processes left behind: {left}"


def test_holder_ends_with_the_graders_end_of_its_pipe():
    """A holder outlives no grader: closing the grader's end of its stdin pipe (what the
    kernel does when the grader dies, even before bubblewrap's --die-with-parent took hold:
    a bulk run killed while a holder started left `sleep` running) ends the holder's shell
    and with it bubblewrap and the sandbox, without a signal from us."""
    run = Path(tempfile.mkdtemp(prefix="grade-holder-test-"))  # as the probe's: enterable
    for sub in ("work", "tmp", "lib"):
        (run / sub).mkdir()
    box = sandbox.RunSandbox(run, POLICY)
    proc, pid = holder.start_holder(box, [], [])
    pidfd = os.pidfd_open(pid)  # the sandbox's process: readable once it has ended
    try:
        assert proc.poll() is None and not select.select([pidfd], [], [], 0)[0]
        proc.stdin.close()
        proc.wait(timeout=30)
        assert select.select([pidfd], [], [], 10)[0], "the sandbox's process outlived its holder"
    finally:
        os.close(pidfd)
        host.kill_group(proc)
        box.after_child()
        box.close()
        shutil.rmtree(run, ignore_errors=True)
