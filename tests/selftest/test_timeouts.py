"""Per-test timeouts sized from the reference's measured time (autograder/backends/timeouts.py): a hang
costs a multiple of what the reference needs, not the assignment's default limit.

Nothing here is timed: each test asserts on the limit that stopped a test (the message the
parent wrote, derived from the goldens' timings) or on the formula, never on wall time.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import grade_root, suite_policy

from autograder import backends, settings
from autograder.assignments import load
from autograder.authoring.goldens import _manifest_differences, _timed
from autograder.backends import base, host, runner, timeouts, warmbox
from autograder.backends.base import RunRequest, RunResult
from autograder.backends.causes import Cause
from autograder.backends.timeouts import FLOOR_S, MAX_SLOWDOWN, MULTIPLE, cold_pool, derived_timeout
from autograder.grading.cause_text import sentence
from autograder.grading.store import GoldenStore, load_store, load_stores
from autograder.markers import without_markers
from autograder.sandbox import SandboxPolicy

ROOT = Path(__file__).resolve().parents[2]
EXP_BODY = "        out = Tensor(np.exp(self.data), _parents=(self,))\n"
TOY_SOLUTION = without_markers(
    (Path(__file__).parent / "toy_course/solutions/toy/__init__.py").read_text())


@pytest.fixture(autouse=True)
def quiet_machine(monkeypatch):
    """Every limit here is the quiet machine's (slowdown 1), whatever the load while the tests
    run: the messages name exact limits. test_a_busy_machine_stretches_the_limit covers the rest."""
    monkeypatch.setattr(timeouts, "machine_slowdown", lambda: 1.0)


def limit_from_goldens(store: GoldenStore, test_id: str, default: float) -> float:
    """The limit the goldens give a test, computed here from the stored fields."""
    test = store.tests[test_id]
    assert test.seconds is not None and store.cold_seconds is not None, \
        f"{store.assignment} goldens hold no timings: run `python -m autograder goldens`"
    cap = test.timeout or default
    return min(cap, max(FLOOR_S, MULTIPLE * (test.seconds + store.cold_seconds)))


def toy_package(tmp_path: Path, source: str) -> Path:
    """A submission folder holding the toy package with `source` as its __init__.py."""
    (tmp_path / "sub" / "toy").mkdir(parents=True)
    (tmp_path / "sub" / "toy" / "__init__.py").write_text(source)
    return tmp_path / "sub"


def hanging_minigrad(tmp_path: Path) -> tuple[Path, int]:
    """The reference minigrad with `while True: pass` at the top of exp(); its line."""
    pkg = tmp_path / "sub" / "minigrad"
    shutil.copytree(ROOT / "solutions" / "minigrad", pkg)
    engine = pkg / "engine.py"
    source = engine.read_text()
    assert source.count(EXP_BODY) == 1
    engine.write_text(source.replace(EXP_BODY, "        while True: pass\n" + EXP_BODY))
    line = engine.read_text().splitlines().index("        while True: pass") + 1
    return tmp_path / "sub", line


def test_a_hang_in_exp_costs_the_limit_the_goldens_give_each_test(tmp_path, monkeypatch):
    """An endless loop in minigrad's exp(). Every test that reaches it is
    stopped at its derived limit (shorter than the assignment's default), the message names
    exp() and its line, every other test scores as on the reference, and each hang costs one
    fresh child (not one per test file left)."""
    minigrad = load("minigrad", ROOT)
    store = load_store(minigrad, "public")
    sub, line = hanging_minigrad(tmp_path)
    children = []
    child = runner.FolderRun._child

    def counted(self, *args):
        children.append(args[2])  # the tests this child was asked to run
        return child(self, *args)

    monkeypatch.setattr(runner.FolderRun, "_child", counted)
    # its zygote first: a process's first lone child starts cold, and a cold child's limits are
    # not shortened (base.RunRequest.test_timeout)
    policy = suite_policy(minigrad)
    if warmbox.probe(policy) is None:
        assert host.BACKEND.warm_zygotes().get(minigrad, kernels=policy.kernels) is not None
    grade = grade_root(minigrad, sub, ("public",), policy=policy)
    timed_out = {t.id for t in grade.tests if grade.run.records[t.id].status == "timeout"}
    assert timed_out, "no test reached the hang"
    assert len(children) == len(timed_out) + 1
    for test in grade.tests:
        if test.id not in timed_out:
            assert test.passed and test.points == test.max_points, (test.id, test.message)
            continue
        limit = limit_from_goldens(store, test.id, minigrad.test_timeout)
        assert limit < minigrad.test_timeout  # derived, not the default
        why = grade.run.records[test.id].cause
        assert (why.cause, why.function, why.file) == (
            Cause.TEST_TIMEOUT, "exp", "minigrad/engine.py"), test.id
        assert sentence(why).startswith(
            f"timed out after {limit:g} s in exp() at minigrad/engine.py:{line} "), test.id
        assert test.points == 0


def test_a_hang_deep_in_a_recursion_is_still_located(toy, tmp_path):
    """The hang sits under 150 recursive calls: the child's stack dump (100 frames of long
    paths) is far longer than the stderr tail a crash message shows, and the parent still
    reads where it hung from the dump's start."""
    deep = ("def _deep(n):\n"
            "    if n == 0:\n"
            "        while True: pass\n"
            "    return _deep(n - 1)\n\n\n")
    source = deep + TOY_SOLUTION.replace("return a + b", "return _deep(150)")
    grade = grade_root(toy, toy_package(tmp_path, source), ("public",))
    record = grade.run.records["test_add"]
    assert record.status == "timeout"
    assert (record.cause.function, record.cause.file, record.cause.line) == (
        "_deep", "toy/__init__.py", 3)


def test_the_child_cannot_lengthen_its_own_limit(toy, tmp_path):
    """The child rewrites its own config (the copy of its limits it was given) at import and
    hangs: the parent still stops it at the limit from the goldens."""
    attack = ("import json as _j, sys as _s\n"
              "try:\n"
              "    _c = _j.load(open(_s.argv[1]))\n"
              "    _c['timeouts'] = {k: 1e6 for k in _c['timeouts']}\n"
              "    _j.dump(_c, open(_s.argv[1], 'w'))\n"
              "except Exception:\n"
              "    pass\n")
    source = attack + TOY_SOLUTION.replace("return a + b", "while True: pass")
    grade = grade_root(toy, toy_package(tmp_path, source), ("public",))
    limit = limit_from_goldens(load_store(toy, "public"), "test_add", toy.test_timeout)
    assert limit < toy.test_timeout
    record = grade.run.records["test_add"]
    assert record.status == "timeout"
    assert record.cause.cause is Cause.TEST_TIMEOUT and record.cause.limit == limit
    assert re.match(rf"timed out after {limit:g} s in add\(\)", sentence(record.cause))


def test_goldens_store_a_timing_for_every_test(toy):
    for vis in ("public", "hidden"):
        store = load_store(toy, vis)
        assert store.cold_seconds is not None and store.cold_seconds >= 0
        assert all(t.seconds is not None and t.seconds >= 0 for t in store.tests.values())


def test_goldens_without_timings_keep_the_default_limits(toy, tmp_path):
    """A store written before timings existed (no `seconds`, no `cold_seconds`) still loads,
    and its tests keep their explicit limit or the assignment's default; so do malformed
    timings, and every test of an assignment that turns measured timeouts off."""
    data = load_store(toy, "public").to_dict()
    del data["cold_seconds"]
    for test in data["tests"].values():
        del test["seconds"]
    old = GoldenStore.from_dict(data)
    assert all(t.seconds is None for t in old.tests.values()) and old.cold_seconds is None
    plan = base.TestPlan.from_stores({"public": old})
    request = RunRequest(toy, toy.solutions, "replay", plan, SandboxPolicy.create())
    assert {request.test_timeout(t) for t in plan.ids} == {toy.test_timeout}
    for bad in ("1", -1.0, True, float("nan"), None):
        data["tests"]["test_add"]["seconds"] = bad
        assert GoldenStore.from_dict(data).tests["test_add"].seconds is None
    timed = base.TestPlan.from_stores({"public": load_store(toy, "public")})
    off = replace(toy, measured_timeouts=False)
    assert RunRequest(toy, toy.solutions, "replay", timed, SandboxPolicy.create()) \
        .test_timeout("test_add") < toy.test_timeout
    assert RunRequest(off, toy.solutions, "replay", timed, SandboxPolicy.create()) \
        .test_timeout("test_add") == toy.test_timeout



def test_a_test_marked_not_measured_keeps_its_cap(toy):
    """`@graded(measured=False)` reaches the goldens and from there the plan: that test keeps its
    cap, its neighbours their measured limits; the mark survives a store's round trip."""
    store = load_store(toy, "public")
    marked = replace(store, tests={**store.tests,
                                   "test_add": replace(store.tests["test_add"], measured=False)})
    again = GoldenStore.from_dict(json.loads(json.dumps(marked.to_dict())))
    assert not again.tests["test_add"].measured and again.tests["test_order"].measured
    request = RunRequest(toy, toy.solutions, "replay", base.TestPlan.from_stores(
        {"public": again}), SandboxPolicy.create())
    assert request.test_timeout("test_add") == toy.test_timeout
    assert request.test_timeout("test_order") < toy.test_timeout

def test_measured_timeouts_must_be_a_boolean(toy_course, tmp_path):
    root = tmp_path / "course"
    shutil.copytree(toy_course, root)
    toml = root / "tests" / "toy" / "assignment.toml"
    toml.write_text(toml.read_text() + 'measured_timeouts = "no"\n')
    with pytest.raises(Exception, match="measured_timeouts must be true or false"):
        load("toy", root)


@pytest.mark.parametrize("seconds, cap, limit", [
    (None, 10.0, 10.0),  # never measured: the cap, as before timings existed
    (0.001, 10.0, FLOOR_S),  # a fast test: the floor
    (0.5, 10.0, 0.5 * MULTIPLE),  # the multiple of the reference's time
    (4.0, 10.0, 10.0),  # never above the cap
    (0.001, 1.0, 1.0),  # an explicit cap below the floor stays
])
def test_derived_timeout(seconds, cap, limit):
    assert derived_timeout(seconds, cap) == pytest.approx(limit)


def test_cold_pool_counts_a_cost_that_moved_once_and_ignores_one_sided_noise():
    # a 0.3 s import paid by the first test going forward and by the last one in reverse
    assert cold_pool([(0.31, 0.01), (0.01, 0.01), (0.01, 0.31)]) == pytest.approx(0.3)
    # one heavy test slower forward (a busier machine during one run): nothing moved
    assert cold_pool([(2.0, 1.0), (0.01, 0.01), (0.02, 0.02)]) == pytest.approx(0.0)


def test_timed_stores_take_the_slowest_run_and_drop_a_test_a_replay_failed(toy):
    stores = load_stores(toy, ("public",))
    ids = list(stores["public"].tests)

    def run(seconds: dict) -> RunResult:
        records = {t: runner.TestRecord(t, "ended", "passed", seconds=s) for t, s in seconds.items()}
        return RunResult(records, [], "", 0, 0.0)

    forward = run({t: 0.1 * (i + 1) for i, t in enumerate(ids)})
    reverse = run({t: 0.05 for t in ids})
    reverse.records[ids[0]].outcome = "failed"  # depends on the order: keeps no timing
    timed = _timed(stores, forward, reverse)["public"]
    assert timed.tests[ids[0]].seconds is None
    assert [timed.tests[t].seconds for t in ids[1:]] == \
        [pytest.approx(0.1 * (i + 2)) for i in range(len(ids) - 1)]
    assert timed.cold_seconds == 0.0  # every difference is one-sided


def test_stale_check_ignores_timings(toy):
    store = load_store(toy, "public")
    slower = replace(store, tests={t: replace(s, seconds=(s.seconds or 0) + 5)
                                   for t, s in store.tests.items()}, cold_seconds=9.0)
    assert _manifest_differences(store, slower) == []
    assert json.loads(json.dumps(slower.to_dict()))["cold_seconds"] == 9.0


def test_the_timing_replay_runs_the_tests_in_reverse(toy, monkeypatch):
    """The second timing of the reference really runs the other way round (else the cold
    pool would always be zero)."""
    ended: list[str] = []
    record_end = runner.FolderRun._record_end

    def spy(self, ev):
        ended.append(ev["id"])
        return record_end(self, ev)

    monkeypatch.setattr(runner.FolderRun, "_record_end", spy)
    plan = base.TestPlan.from_stores(load_stores(toy, ("public",)))
    orders = []
    for reverse in (False, True):
        ended.clear()
        result = backends.run(RunRequest(toy, toy.solutions, "replay", plan,
                                         SandboxPolicy.create(), trusted=True, reverse=reverse))
        assert all(r.outcome == "passed" and r.seconds is not None
                   for r in result.records.values())
        orders.append(list(ended))
    assert len(orders[0]) > 1 and orders[1] == orders[0][::-1]


@pytest.mark.parametrize("load, cores, slowdown", [(0.3, 2, 1.0), (6.0, 2, 3.0), (30.0, 2, 15.0),
                                                   (500.0, 2, MAX_SLOWDOWN)])
def test_a_busy_machine_stretches_the_limit(monkeypatch, load, cores, slowdown):
    """The load average per core stretches every derived limit (a correct submission on a
    machine running 30 processes on 2 cores must not time out), never below the quiet limit,
    never past MAX_SLOWDOWN times it and never past the cap."""
    monkeypatch.undo()  # the real machine_slowdown, on a faked load average
    monkeypatch.setattr(timeouts.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(timeouts, "runnable_now", lambda: load)
    monkeypatch.setattr(timeouts.os, "sched_getaffinity", lambda pid: set(range(cores)))
    factor = timeouts.machine_slowdown()
    assert factor == pytest.approx(slowdown)
    assert derived_timeout(0.3, 1000.0, factor) == pytest.approx(slowdown * 0.3 * MULTIPLE)
    assert derived_timeout(0.001, 1000.0, factor) == pytest.approx(slowdown * FLOOR_S)
    assert derived_timeout(5.0, 10.0, factor) == 10.0  # the cap still caps
    assert derived_timeout(0.3, 1000.0, 1e6) == pytest.approx(MAX_SLOWDOWN * 0.3 * MULTIPLE)


class LoadingBox:
    """A box whose "child" raises the machine's load as soon as it starts (dozens of busy
    processes), reports the start of its first test and dies in it, so the runner starts a
    second child for the rest after the load rose. It keeps each child's limits (the config's
    timeouts) and the limit the parent timed the test in progress with. Its children count as
    warm ones (`paths`, as WarmBox's): their limits are derived from the goldens' timings."""

    configs: list[dict]
    load: list[float]

    def __init__(self, run: Path, req: RunRequest, caps):
        self.req = req
        self.paths = [base.RunPath.WARM]

    def new_output_file(self, path: Path) -> Path:
        path.touch()
        return path

    def start(self, boot, config, writable, forbidden, stdout, stderr):
        limits = json.loads(Path(config).read_text())["timeouts"]
        LoadingBox.load[0] = 60.0  # 30 busy processes per core from here on
        first = next(iter(limits))
        writable[0].write_text(json.dumps({"ev": "start", "id": first}) + "\n")
        LoadingBox.configs.append({"child": limits, "in_progress": self.req.test_timeout(first)})
        return type("Died", (), {"poll": lambda self: 1, "kill": lambda self: None})()

    def after_child(self) -> None:
        pass

    def close(self) -> None:
        pass

    @staticmethod
    def hidden_refusal(request, caps):
        return None


def limits_under(toy, monkeypatch, load_before: float) -> list[dict]:
    """The limits of every child of one public run of the toy's tests (cap 1000 s each) that
    starts with `load_before` on a 2-core machine and drives the load to 60 while it runs."""
    monkeypatch.undo()  # the real machine_slowdown, on a faked load average
    LoadingBox.configs, LoadingBox.load = [], [load_before]
    monkeypatch.setattr(timeouts.os, "getloadavg", lambda: tuple(LoadingBox.load) * 3)
    monkeypatch.setattr(timeouts, "runnable_now", lambda: LoadingBox.load[0])
    monkeypatch.setattr(timeouts.os, "sched_getaffinity", lambda pid: {0, 1})
    plan = base.TestPlan.from_stores(load_stores(toy, ("public",)))
    plan = replace(plan, timeouts=dict.fromkeys(plan.ids, 1000.0))
    runner.run_tests(RunRequest(toy, toy.solutions, "replay", plan, SandboxPolicy.create()),
                     LoadingBox)
    assert len(LoadingBox.configs) == len(plan.ids) > 1  # one child per test: each died in it
    return LoadingBox.configs


def test_load_the_run_creates_never_lengthens_its_limits(toy, monkeypatch):
    """The load factor is read once, before the run's first child, and frozen: a submission
    that spins up busy processes gets exactly the limits of the same run on a quiet machine
    (every child's config and the parent's clock alike); a run that starts on a busy machine
    is stretched by the load found then, at most MAX_SLOWDOWN times."""
    quiet = limits_under(toy, monkeypatch, load_before=0.0)
    plan = base.TestPlan.from_stores(load_stores(toy, ("public",)))
    expected = {i: derived_timeout(plan.measured[i], 1000.0, 1.0) for i in plan.ids}
    for child in quiet:
        assert child["child"] == {i: expected[i] for i in child["child"]}
        assert child["in_progress"] == expected[next(iter(child["child"]))]
    busy = limits_under(toy, monkeypatch, load_before=1000.0)
    for child in busy:
        assert child["child"] == {i: derived_timeout(plan.measured[i], 1000.0, MAX_SLOWDOWN)
                                  for i in child["child"]}


def test_load_of_processes_that_are_gone_does_not_count(monkeypatch):
    """The 1-minute average still holds an earlier run's busy processes after they died with
    its child; the runnable count now does not: the machine is quiet, the factor is 1. Where
    /proc/loadavg is unreadable the average alone counts."""
    monkeypatch.undo()
    monkeypatch.setattr(timeouts.os, "getloadavg", lambda: (60.0, 20.0, 7.0))
    monkeypatch.setattr(timeouts.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(timeouts, "runnable_now", lambda: 0.4)
    assert timeouts.machine_slowdown() == 1.0
    monkeypatch.setattr(timeouts, "runnable_now", lambda: 8.0)  # still busy: both agree
    assert timeouts.machine_slowdown() == 4.0
    monkeypatch.setattr(timeouts, "runnable_now", lambda: None)
    assert timeouts.machine_slowdown() == MAX_SLOWDOWN
    assert timeouts.runnable_now() is None or timeouts.runnable_now() >= 0.0  # the real reader


HANG_DUMP_RACE = """
import importlib.machinery, os, sys
sys.path.insert(0, sys.argv[1])
from autograder.harness.hang_dump import HangDump

dump = HangDump(os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC))


class ArmEveryImport:  # a dump due 0.5 ms after each module torch and transformers import
    def find_spec(self, name, path=None, target=None):
        dump.arm(0.0005)
        return None


sys.meta_path.insert(0, ArmEveryImport())
import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import GPT2LMHeadModel, LlamaForCausalLM  # noqa: E402
print("imported")
"""


def test_a_stack_dump_never_crashes_a_busy_child(tmp_path):
    """The dump due shortly before a test's limit fires while the test still works (a cold
    child importing transformers on a slow machine): it must never crash it. Dumps due every
    0.5 ms through the imports of torch and transformers; the child ends normally and the
    dumps it wrote have the header hang_site reads. (faulthandler.dump_traceback_later, which
    the harness used before, died with SIGSEGV in 15 of 16 such runs on CPython 3.11.)"""
    import subprocess
    import sys

    script, out = tmp_path / "race.py", tmp_path / "dumps.txt"
    script.write_text(HANG_DUMP_RACE)
    done = subprocess.run([sys.executable, "-I", "-B", str(script), str(ROOT), str(out)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0 and "imported" in done.stdout, (done.returncode, done.stderr[-2000:])
    dumps = out.read_text()
    assert dumps.count("Timeout (0:00:00.000500)!") > 10, dumps[:2000]
    assert re.search(r'File "[^"]+", line \d+ in \S+', dumps), dumps[:2000]


def test_a_cold_child_dumps_its_stack_at_its_own_limit(toy, tmp_path, monkeypatch):
    """A cold child's limits are not shortened (it pays the imports a warm child's zygote
    made), and the limits its config carries, which time its stack dump, are those: with the
    warm limits it dumped at 80 % of 2 s in a test the parent let run for the cap (CI: a cold
    child importing transformers, killed mid-dump)."""
    monkeypatch.setenv(settings.WARM.name, "0")
    configs = []
    make = runner.FolderRun._config

    def spied(self, *args):
        config = make(self, *args)
        configs.append((self.request, config))
        return config

    monkeypatch.setattr(runner.FolderRun, "_config", spied)
    grade = grade_root(toy, toy_package(tmp_path, TOY_SOLUTION), ("public",))
    assert grade.run.path == base.RunPath.COLD and configs
    store = load_store(toy, "public")
    for request, config in configs:
        assert config.timeouts, config
        for test_id, limit in config.timeouts.items():
            assert limit == request.test_timeout(test_id, True) == toy.test_timeout
            assert limit > limit_from_goldens(store, test_id, toy.test_timeout)  # the warm one
