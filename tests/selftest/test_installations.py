"""The child imports from the viewed venv only (sandbox/installations.py): every other Python
installation under the trees the sandbox mounts (the base interpreter's own site-packages,
Debian's dist-packages, a bundled SDK's Python) is an empty folder in the child, on the cold
path and the warm one alike. The attack (adversarial/installations.py) searches the whole
filesystem it sees for a site folder other than its own, imports scipy's `ttest_ind` from each
by `sys.path`, and runs every interpreter it finds as a co-process: it finds nothing. With the
installations left visible (`unhidden`) it finds them, and on a machine whose base interpreter
has scipy (this one's pyenv build) imports and runs `ttest_ind` from it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import grade_root, submission

from autograder import sandbox, settings
from autograder.backends import Placement, docker, warmbox
from autograder.sandbox import bwrap, installations

HERE = Path(__file__).parent
POLICY = sandbox.SandboxPolicy.create()
NO_BWRAP = bwrap.probe()
needs_bwrap = pytest.mark.skipif(NO_BWRAP is not None, reason=f"no namespaces: {NO_BWRAP}")


def base_has_scipy() -> bool:
    """Whether a site folder the child must not see holds scipy (then the unhidden attack must
    reach it)."""
    dirs = installations.foreign_site_dirs(tuple(bwrap.mounted_trees()),
                                           installations.viewed_site_dirs())
    return any((Path(d) / "scipy" / "stats").is_dir() for d in dirs)


@pytest.fixture
def roomy_toy(toy_env):
    """The toy course with generous limits: the attack walks the whole filesystem and runs
    interpreters that import scipy while its package is imported, which took past the toy's 3 s
    limits on a loaded 2-core machine (its test file then never loaded)."""
    from autograder.assignments import load

    return load("toy", toy_env)


def probe(toy, tmp_path: Path, path: str, monkeypatch) -> dict:
    """What the attack reported, graded on `path` ("warm", "cold" or "docker")."""
    monkeypatch.setenv(settings.WARM.name, "1" if path == "warm" else "0")
    if path == "warm":  # the zygote is up: a process's first lone child runs cold
        grade_root(toy, toy.solutions, policy=POLICY, visibilities=("public",))
    source = (HERE / "adversarial" / "installations.py").read_text()
    grade = grade_root(toy, submission(tmp_path, source), policy=POLICY,
                                  visibilities=("public",),
                                  placement=Placement("docker") if path == "docker" else None)
    expected = "cold" if path == "docker" else path  # a container is a cold child
    assert grade.run is not None and grade.run.path == expected, grade.problems
    message = next(t.message for t in grade.tests if t.id == "test_add")
    assert "SEEN" in message, (message, grade.problems)
    return json.loads(message.split("SEEN")[1])


@needs_bwrap
@pytest.mark.parametrize("path", ["cold", "warm"])
def test_no_installation_but_the_viewed_venv(roomy_toy, tmp_path, monkeypatch, path):
    if path == "warm" and warmbox.probe(POLICY) is not None:
        pytest.skip("no warm path here")
    seen = probe(roomy_toy, tmp_path, path, monkeypatch)
    assert seen == {"site_dirs": [], "sys_path": [], "co_process": []}


@needs_bwrap
@pytest.mark.parametrize("path", ["cold", "warm"])
def test_unhidden_installations_are_found(roomy_toy, tmp_path, monkeypatch, path):
    """The mutant: the sandbox without the hiding (the trees mounted whole, as before)."""
    if path == "warm" and warmbox.probe(POLICY) is not None:
        pytest.skip("no warm path here")
    foreign = installations.foreign_site_dirs(tuple(bwrap.mounted_trees()),
                                              installations.viewed_site_dirs())
    if not any(os.listdir(d) for d in foreign):
        pytest.skip("no other Python installation with packages on this machine")
    monkeypatch.setattr(bwrap, "hiding_args", lambda trees, empty: [])
    seen = probe(roomy_toy, tmp_path, path, monkeypatch)
    assert seen["site_dirs"], seen
    if base_has_scipy():
        assert seen["sys_path"] and seen["co_process"], seen


@pytest.mark.parametrize("hidden", [True, False], ids=["real", "unhidden"])
def test_the_container_shows_no_installation_but_its_venv(engine, roomy_toy, tmp_path,
                                                          monkeypatch,
                                                          hidden):
    """`--backend docker`: an empty folder is bound over each of the runner image's other site
    folders (backends/docker.py); unhidden (none bound), the attack lists those that hold
    anything."""
    foreign = docker.image_foreign_site_dirs()
    if not hidden:
        monkeypatch.setattr(docker, "image_foreign_site_dirs", lambda: [])
    seen = probe(roomy_toy, tmp_path, "docker", monkeypatch)
    if hidden:
        assert seen == {"site_dirs": [], "sys_path": [], "co_process": []}
    else:
        assert set(seen["site_dirs"]) <= set(foreign), seen
        if not seen["site_dirs"]:
            pytest.skip(f"the image's other site folders hold nothing: {foreign}")


def test_the_walk_finds_every_site_folder_but_the_viewed(tmp_path):
    """A base installation, a nested SDK, a Debian folder and a link: each found (the link as
    its target); the viewed folder is neither listed nor walked."""
    for rel in ("base/lib/python3.11/site-packages/scipy", "usr/lib/python3/dist-packages/x",
                "usr/lib/sdk/platform/py/lib/python3.12/site-packages",
                "venv/lib/python3.11/site-packages/pkg/site-packages", "elsewhere/real"):
        (tmp_path / rel).mkdir(parents=True)
    (tmp_path / "usr/lib/site-packages").symlink_to(tmp_path / "elsewhere/real")
    (tmp_path / "usr/lib/link-to-venv").symlink_to(tmp_path / "venv")
    viewed = str(tmp_path / "venv/lib/python3.11/site-packages")
    found = installations.foreign_site_dirs(
        (str(tmp_path / "base"), str(tmp_path / "usr"), str(tmp_path / "venv"),
         str(tmp_path / "elsewhere")), (viewed,))
    assert [Path(p).relative_to(tmp_path).as_posix() for p in found] == [
        "base/lib/python3.11/site-packages", "elsewhere/real",
        "usr/lib/python3/dist-packages", "usr/lib/sdk/platform/py/lib/python3.12/site-packages"]
