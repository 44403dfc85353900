import collections
import os
import shutil
import time
from pathlib import Path

import pytest

from autograder.assignments import Assignment, discover, load
from autograder.authoring.goldens import generate

collect_ignore = ["toy_course"]
TOY = Path(__file__).parent / "toy_course"


SESSION_TOY = pytest.StashKey[Assignment]()  # the toy_course fixture's
COURSE = tuple(discover())


@pytest.fixture(scope="session")
def toy_course(tmp_path_factory, pytestconfig) -> Path:
    """A copy of the toy course with freshly generated goldens."""
    root = tmp_path_factory.mktemp("course") / "course"
    shutil.copytree(TOY, root)
    generate(load("toy", root))
    pytestconfig.stash[SESSION_TOY] = load("toy", root)
    return root


@pytest.fixture(scope="session", autouse=True)
def room_for_the_toys_zygote():
    """A worker grades the course's assignments and the toy course: room for a zygote each, so
    that the toy's does not replace a real assignment's (whose restart costs 2-6 CPU s)."""
    from autograder.backends import warmbox
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(warmbox, "MAX_ZYGOTES", max(warmbox.MAX_ZYGOTES, len(COURSE) + 1))
        yield


@pytest.fixture(autouse=True)
def zygotes_of_temporary_courses_end_with_their_test(pytestconfig):
    """A zygote only a test's own course copy used (toy_env or a tmp_path course, with other
    imports or rules than the course's: a copy's same ones share the course's zygote) has no
    use after the test: closed then, so that the course's eight real zygotes and the session's
    toy are not pushed out of the grader's MAX_ZYGOTES (each restart: 0.2-6 CPU s)."""
    yield
    from autograder.backends import host
    if host.BACKEND.zygotes is not None:
        toy = pytestconfig.stash.get(SESSION_TOY, None)
        host.BACKEND.zygotes.close(keep=[*COURSE, *([toy] if toy else [])])


@pytest.fixture
def without_bubblewrap(tmp_path, monkeypatch) -> str:
    """This process and those it starts find no bubblewrap on PATH (helpers.path_without): the
    namespaces layer is really missing, with the reason a machine without it gives. Yields
    that PATH."""
    from helpers import path_without

    from autograder.sandbox import bwrap
    path = path_without(tmp_path / "path-without-bwrap", "bwrap")
    monkeypatch.setenv("PATH", path)
    bwrap.probe.cache_clear()
    yield path
    bwrap.probe.cache_clear()  # (before monkeypatch puts PATH back: the next probe looks again)


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
    # the image the docker backend runs (AUTOGRADER_DOCKER_IMAGE, else its default tag)
    tag = docker_image.build_runner(podman, "cpu", tag=os.environ.get("AUTOGRADER_DOCKER_IMAGE"))
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


# Tests that take 10-45 s of wall each, mostly waiting (ddp's rendezvous, nbgrader's and
# podman's processes): run first, so that pytest-xdist's first round hands one to each worker
# and they overlap with the rest, instead of one of them ending the run alone. None of them
# shares a module-scoped fixture with the tests left in place (test_release's release,
# test_ddp_battery's scenarios): a worker of its own would build that fixture again.
LONG_FIRST = ("test_docker.py::test_examples_grade_the_same_in_containers[classic-bugs-ddp]",
              "test_docker.py::test_examples_grade_the_same_in_containers[classic-bugs-fusion]",
              "test_nbgrader.py::test_nbgrader_autogrades",
              "test_nbgrader.py::test_tampered_notebooks",
              "test_warm.py::test_classic_bugs_example_parity[ddp]",
              "test_course.py::test_goldens_are_fresh[ddp]",
              "test_variants.py::test_correct_variant_scores_full_marks[ddp-",
              "test_variants.py::test_correct_variant_scores_full_marks[dedup-float32_inside]",
              "test_bug_hints.py::test_no_hint_names_a_mistake_the_bug_does_not_make[ddp-",
              "test_course.py::test_solutions_score_full_marks[ddp]",
              # waits out the 10 s rendezvous of ranks that claim one rank, on the draw and
              # again on the published inputs (its test keeps its cap: measured=False)
              "test_course.py::test_mutant_is_caught_with_its_hint[ddp-join_rank_from_local_rank]",
              "test_variants.py::test_correct_variant_scores_full_marks[bpe-tiktoken_merge_loop]")


def pytest_terminal_summary(terminalreporter):
    """After the course self-test's freshness checks: each checked assignment's goldens'
    origin against this machine's, a line each (authoring/origin.py). Goldens from another
    machine are no failure: they compare within float_policy's allowance, and the checks ran
    under other kernels than this machine's default (test_course.py)."""
    from autograder.authoring.origin import describe, differences, origin
    from autograder.grading.store import StoreError, load_store
    from autograder.sandbox import Kernels

    prefix = "test_course.py::test_goldens_are_fresh["
    ran = sorted({r.nodeid.split(prefix)[1].rstrip("]") for reports in
                  terminalreporter.stats.values() for r in reports
                  if prefix in getattr(r, "nodeid", "") and getattr(r, "when", "") == "call"})
    if not ran:
        return
    here = origin(Kernels())
    terminalreporter.section("goldens' origin")
    terminalreporter.write_line(f"this machine: {describe(here)}")
    for name in ran:
        try:
            stored = load_store(load(name), "public").origin
        except StoreError as e:
            terminalreporter.write_line(f"{name}: {e}")
            continue
        other = differences(stored, here)
        verdict = "" if not stored else " (this machine's)" if not other \
            else f" (differs in {', '.join(other)})"
        terminalreporter.write_line(f"{name} goldens: {describe(stored)}{verdict}")


def zygote_group(item) -> str | None:
    """The pytest-xdist group (`make test` runs --dist loadgroup) of a test that grades one of
    the course's assignments on the host: one per assignment and kernels (test_course's under
    its variant, the others' under the machine's default), the key of the zygote its children
    fork from (backends/warmbox.py; the assignment is the test's `assignment`, `name` or
    `course` parameter). A worker then starts each zygote it serves once, instead of each
    worker starting every one of them again and again as its MAX_ZYGOTES rotate (each start:
    0.6-7 CPU s and 0.1-0.5 GB). None (no group: any worker) for a container test and a
    LONG_FIRST one (it overlaps the rest from the start)."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    named = [getattr(params.get("assignment"), "name", None), params.get("name"),
             params.get("course")]
    course = next((n for n in named if isinstance(n, str) and n in COURSE_NAMES), None)
    if course is None or "engine" in getattr(item, "fixturenames", ()) or long_first(item):
        return None
    return f"{course}-{'variant' if item.path.name == 'test_course.py' else 'default'}"


COURSE_NAMES = frozenset(a.name for a in COURSE)


def long_first(item) -> bool:
    return any(long in item.nodeid for long in LONG_FIRST)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's, which reads the groups
def pytest_collection_modifyitems(config, items):
    if "defence_off" not in (config.option.markexpr or ""):  # only when selected by name
        off = [item for item in items if item.get_closest_marker("defence_off")]
        if off:
            config.hook.pytest_deselected(items=off)
            items[:] = [item for item in items if not item.get_closest_marker("defence_off")]
    # the order the workers take them in (make test: --no-loadscope-reorder): LONG_FIRST, then
    # the zygote groups, largest first, then the rest as collected
    groups = {item: zygote_group(item) for item in items}
    sizes = collections.Counter(g for g in groups.values() if g is not None)
    items.sort(key=lambda item: (not long_first(item), groups[item] is None,
                                 -sizes[groups[item]], groups[item] or ""))
    for item in items:
        if groups[item] is not None:
            item.add_marker(pytest.mark.xdist_group(groups[item]))
        name = item.path.name
        params = getattr(getattr(item, "callspec", None), "params", {})
        course = params.get("assignment")
        if name in FAST_FILES or (name == "test_course.py"
                                  and getattr(course, "name", None) == FAST_ASSIGNMENT):
            item.add_marker(pytest.mark.fast)
        if "engine" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.docker)
