import os
import shutil
import time
from pathlib import Path

import pytest

from autograder.assignments import Assignment, load
from autograder.authoring.goldens import generate

collect_ignore = ["toy_course"]
TOY = Path(__file__).parent / "toy_course"


@pytest.fixture(scope="session")
def toy_course(tmp_path_factory) -> Path:
    """A copy of the toy course with freshly generated goldens."""
    root = tmp_path_factory.mktemp("course") / "course"
    shutil.copytree(TOY, root)
    generate(load("toy", root))
    return root


@pytest.fixture
def toy(toy_course) -> Assignment:
    return load("toy", toy_course)


@pytest.fixture
def toy_env(toy_course, tmp_path, monkeypatch) -> Path:
    """A copy of the toy course with generous timeouts, as the course root: a class run on a
    loaded machine must not turn a slow test into a lost point (bulk comparisons need equal
    grades)."""
    root = tmp_path / "course"
    shutil.copytree(toy_course, root)
    toml = root / "tests" / "toy" / "assignment.toml"
    toml.write_text(toml.read_text().replace("test_timeout = 3", "test_timeout = 120\nmeasured_timeouts = false")
                    .replace("run_timeout = 60", "run_timeout = 600"))
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(root))
    return root


@pytest.fixture(scope="session")
def engine():
    """DOCKER_HOST of a podman service with the runner image built (or found in the cache);
    skipped, with the reason, where podman cannot run. Shared by every container test
    (test_docker, test_channels, test_gradescope): one image, one service per session."""
    from autograder.backends import docker_image

    problem = docker_image.podman_problem()
    if problem is not None:
        pytest.skip(f"no container engine: {problem}")
    podman = docker_image.Podman()
    started = time.monotonic()
    tag = docker_image.build_runner(podman, "cpu")
    built_s = time.monotonic() - started
    with docker_image.PodmanService(podman) as svc:
        old = os.environ.get("DOCKER_HOST")
        os.environ["DOCKER_HOST"] = svc.url
        try:
            yield {"url": svc.url, "tag": tag, "build_s": built_s, "podman": podman}
        finally:
            if old is None:
                os.environ.pop("DOCKER_HOST", None)
            else:
                os.environ["DOCKER_HOST"] = old


# The fast tier (`make test-fast`, `pytest -m fast`): these files whole, plus the course
# self-test (test_course) of FAST_ASSIGNMENT only. Tests that use the `engine` fixture are
# marked `docker`.
FAST_FILES = frozenset({"test_engine.py", "test_sandbox.py", "test_backends.py",
                        "test_layout.py", "test_audiences.py", "test_exception_kind.py",
                        "test_cli.py", "test_causes.py"})
FAST_ASSIGNMENT = "minigrad"


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = item.path.name
        params = getattr(getattr(item, "callspec", None), "params", {})
        course = params.get("assignment")
        if name in FAST_FILES or (name == "test_course.py"
                                  and getattr(course, "name", None) == FAST_ASSIGNMENT):
            item.add_marker(pytest.mark.fast)
        if "engine" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.docker)
