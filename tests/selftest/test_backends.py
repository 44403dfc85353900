"""The backend seam (autograder/backends/base.py): what a backend receives and returns is plain
data that survives JSON (a Kubernetes or Slurm backend ships it to another machine), and every
run that executes code - grading AND golden generation - goes through the backend registry.

Mutants that fail these tests: a field left out of `to_json` (or read back under another
type: a tuple as a list, a path as a string); `goldens.generate` calling `runner.run_tests`
directly again (`goldens --backend docker` quietly running on the host); the placement's GPUs
not reaching the request; `backend` or `gpus` put back on `SandboxPolicy`; the child config
accepting a key it does not know.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest

from autograder import backends
from autograder.assignments import load
from autograder.authoring import goldens
from autograder.backends import base
from autograder.backends.base import Placement, RunRequest, RunResult
from autograder.backends.causes import Cause, Reason
from autograder.grading import store
from autograder.harness.config import ChildConfig
from autograder.sandbox import Limits, SandboxPolicy


def _through_json(obj):
    return type(obj).from_json(json.loads(json.dumps(obj.to_json())))


def test_run_request_round_trips_through_json(toy):
    plan = base.TestPlan.from_stores(store.load_stores(toy))
    policy = SandboxPolicy(mode="strict", limits=Limits(memory=2**30, pids=77),
                           disabled=frozenset({"cgroup", "user"}))
    for request in (RunRequest(toy, Path("/tmp/impl"), "replay", plan, policy,
                               default_timeout=4.5, run_timeout=99.0,
                               inputs_base=Path("/tmp/base"), keep=True, timeout_scale=3.0,
                               trusted=True, gpus="all"),
                    RunRequest(toy, toy.solutions, "gen", None, SandboxPolicy())):
        again = _through_json(request)
        assert again == request
        assert again.to_json() == request.to_json()
        assert again.test_timeout(plan.ids[0]) == request.test_timeout(plan.ids[0])


def test_run_result_round_trips_through_json():
    records = {"t1": base.TestRecord("t1", "ended", "passed", obs=[{"name": "y", "value": 1.5}],
                                meta={"points": 2}, inputs={"x": [1, 2]},
                                where={"function": "f", "file": "a.py", "line": 3,
                                       "student": True}),
               "t2": base.TestRecord("t2", "timeout", cause=Reason(
                   Cause.TEST_TIMEOUT, limit=3.0, file="a.py", line=4, function="f")),
               "t3": base.TestRecord("t3", "ended", "failed", error="ImportError: no",
                                     error_type="ImportError",
                                     cause=Reason(Cause.FORBIDDEN_IMPORT, module="torch"))}
    result = RunResult(records, [Reason(Cause.COLLECT_ERROR, file="a.py", detail="SyntaxError"),
                                 Reason(Cause.RUN_TIMEOUT, limit=60.0),
                                 Reason(Cause.CRASHED, last="Segmentation fault", status=-11)],
                       "tail", 1, 2.25)
    again = _through_json(result)
    assert again == result
    assert again.records["t2"].cause.cause is Cause.TEST_TIMEOUT  # a member, not its name


def test_request_refuses_an_unknown_mode(toy):
    with pytest.raises(ValueError, match="run mode"):
        RunRequest(toy, toy.solutions, "grade", None, SandboxPolicy())


def test_where_a_child_runs_is_not_sandbox_policy():
    names = {f.name for f in dataclasses.fields(SandboxPolicy)}
    assert not names & {"backend", "gpus"}, names
    assert Placement().backend == "host"
    assert Placement.from_json(Placement("docker", "all").to_json()) == Placement("docker", "all")


def test_child_config_round_trips_and_refuses_unknown_keys():
    cfg = ChildConfig(mode="replay", assignment="toy", events="/r/e", lib="/r/lib",
                      impl="/r/impl", workdir="/r/work", rootdir="/r/tests", ini="/r/p.ini",
                      inputs={"public": "/r/i.json"}, test_files=["/r/t.py"], plan=["a"],
                      forbidden=["torch"], timeouts={"a": 3.0})
    assert ChildConfig.from_json(cfg.to_json()) == cfg
    with pytest.raises(ValueError):
        ChildConfig.from_json(json.dumps({**json.loads(cfg.to_json()), "extra": 1}))


class SpyBackend:
    """A backend that notes each request (through JSON, as a remote one would receive it) and
    runs it on the host."""

    name = "spy"

    def __init__(self):
        self.requests: list[RunRequest] = []

    def problem(self) -> str | None:
        return None

    def run(self, request: RunRequest) -> RunResult:
        self.requests.append(_through_json(request))
        return _through_json(backends.get_backend("host").run(request))


def test_golden_generation_runs_on_the_chosen_backend(toy_course, tmp_path, monkeypatch):
    spy = SpyBackend()
    real = backends.get_backend
    monkeypatch.setattr(backends, "get_backend",
                        lambda name: spy if name == "spy" else real(name))
    toy = load("toy", toy_course)
    stores = goldens.generate(toy, tmp_path, placement=Placement("spy", "2"))
    modes = [r.mode for r in spy.requests]
    # the generating run, the two timing replays of the reference (in order, reversed), the
    # probe draw (the fixed marks), each mutant on the published inputs
    assert modes[0] == "gen" and modes.count("gen") == 1 + goldens.PROBE_DRAWS
    assert modes.count("replay") == len(stores["public"].mutants) + 2
    assert len(stores["public"].mutants) >= 1 and [r.reverse for r in spy.requests].count(True) == 1
    assert {r.gpus for r in spy.requests} == {"2"}
    assert stores["public"].tests  # what came back through JSON made the stores


def test_selftest_runs_every_child_on_the_chosen_backend(toy_course, monkeypatch, capsys):
    """`selftest --backend B`: the regeneration, the replay of the reference, solutions,
    starter and every mutant run on B; the host backend runs only what B hands it."""
    from autograder.authoring import course_selftest
    from autograder.authoring.mutants import load_mutants

    spy, host, host_runs = SpyBackend(), backends.get_backend("host"), []

    class CountingHost:
        name = "host"

        def problem(self):
            return host.problem()

        def run(self, request):
            host_runs.append(request)
            return host.run(request)

    counting = CountingHost()
    monkeypatch.setattr(backends, "get_backend", lambda name: spy if name == "spy" else counting)
    toy = load("toy", toy_course)
    course_selftest.run_selftest(toy, placement=Placement("spy", "1"))
    out = capsys.readouterr().out  # (the toy course's tolerances are not the policy's: a FAIL)
    for label in ["goldens fresh", "solutions 100%", "starter 0",
                  *(f"mutant {m.name}" for m in load_mutants(toy))]:
        assert f"toy: {label}: ok" in out, out
    modes = [(r.mode, r.trusted) for r in spy.requests]
    # goldens fresh: a regeneration (no probe draws: the fixed marks are not compared) and a
    # replay of the reference on the committed inputs
    assert modes.count(("gen", False)) == 1 and modes.count(("replay", True)) == 1, modes
    graded = [r for r in spy.requests if (r.mode, r.trusted) == ("replay", False)]
    drawn = [r for r in spy.requests if (r.mode, r.trusted) == ("gen", True)]
    # solutions, starter, each mutant: each grading's draw (the reference) and its children
    assert len(graded) >= 2 + len(load_mutants(toy)) <= len(drawn), modes
    assert len(host_runs) == len(spy.requests)  # every host run came through the spy
    assert {r.gpus for r in spy.requests} == {"1"}


def test_no_backend_is_offered_for_course_code_only_and_preloads_hold_nothing_forbidden():
    """One path: the CLI offers the registry's backends and nothing else; what a zygote
    imports (backends/preload.py) holds nothing an assignment forbids."""
    from autograder.assignments import load as load_course
    from autograder.backends.preload import preload_list
    from autograder.cli import build_parser

    assert set(backends.REGISTRY) == {"host", "docker"}
    with pytest.raises(SystemExit):
        build_parser().parse_args(["grade", "x.zip", "--backend", "warm"])
    minigrad = load_course("minigrad")  # forbids torch outright
    assert "torch" not in {n.partition(":")[0].split(".")[0] for n in preload_list(minigrad)}
    fusion = load_course("fusion")  # forbids transformers.models but its GPT-2 and Llama
    names = preload_list(fusion)
    assert {"transformers:GPT2LMHeadModel", "transformers:LlamaForCausalLM"} <= set(names), names
    assert "torch.nn.functional" in names and "math:log" in names
    stricter = dataclasses.replace(fusion, forbidden=(*fusion.forbidden, "math", "torch.nn"))
    kept = preload_list(stricter)
    assert not [n for n in kept if n.startswith(("math", "torch.nn", "torch:nn"))], kept


def test_a_zygote_outlives_the_thread_that_started_it():
    """A bulk executor's thread may start a zygote and end: the zygote must keep serving the
    process (a parent-death signal would fire on that thread's end)."""
    import threading

    from autograder.assignments import load as load_course
    from autograder.backends import warmbox

    if warmbox.probe(SandboxPolicy.create()) is not None:
        pytest.skip("no warm path here")
    zygotes = warmbox.WarmZygotes()
    started = []
    thread = threading.Thread(target=lambda: started.append(zygotes.get(load_course("minigrad"))))
    thread.start()
    thread.join()
    try:
        time.sleep(0.5)
        assert started[0] is not None and started[0].alive()
    finally:
        zygotes.close()


def test_zygotes_beyond_the_limit_replace_the_least_recently_used(toy_course, tmp_path,
                                                                  monkeypatch):
    """One zygote per (imports, forbidden rules): a copy of a course shares the course's; at
    most MAX_ZYGOTES per grader process, the least recently used replaced (killed); a
    `close(keep=...)` keeps the zygotes serving the assignments it names and kills the rest."""
    import shutil

    from autograder.backends import warmbox

    if warmbox.probe(SandboxPolicy.create()) is not None:
        pytest.skip("no warm path here")
    monkeypatch.setattr(warmbox, "MAX_ZYGOTES", 2)
    courses = [load("toy", toy_course)]
    for name, extra in (("b", "fractions"), ("c", "colorsys"), ("same", "")):
        shutil.copytree(toy_course, tmp_path / name)
        if extra:  # another import: another zygote
            common = tmp_path / name / "tests" / "toy" / "common.py"
            common.write_text(common.read_text() + f"\nimport {extra}  # noqa\n")
        courses.append(load("toy", tmp_path / name))
    zygotes = warmbox.WarmZygotes()
    try:
        first, second = zygotes.get(courses[0]), zygotes.get(courses[1])
        assert zygotes.get(courses[3]) is first  # the same imports and rules: shared
        stricter = dataclasses.replace(courses[0], forbidden=(*courses[0].forbidden, "sqlite3"))
        assert zygotes.key(stricter)[1] != zygotes.key(courses[0])[1]  # rules read each time
        assert zygotes.get(courses[0]) is first  # used again: the most recent now
        third = zygotes.get(courses[2])  # replaces the least recently used: the second
        assert second.proc.wait(timeout=30) is not None and first.alive() and third.alive()
        assert zygotes.get(courses[1], start=False) is None
        zygotes.close(keep=[courses[2]])
        assert first.proc.wait(timeout=30) is not None and third.alive()
        assert zygotes.get(courses[2], start=False) is third
    finally:
        zygotes.close()
