"""No channel between the children of one submission (SPEC §3, docs/SECURITY.md).

One hostile submission (adversarial/channel_all.py): its hidden child leaves a marker through
every channel two processes on a machine can share (flock and POSIX locks on shared files,
/dev/shm, an abstract unix socket, loopback TCP and UDP, signals, /proc, System V shared
memory), held by a daemon; its public child looks for them for a few seconds and reports
what it saw in a visible error message. One graded run per setting serves every channel's
test. Each detector is proved live first: the public child's own helper sets the same markers
under another tag, and each must be seen (else the test is void, not passed).

Mutants that fail these tests: running the two children side by side again (runner.run_tests
with a ThreadPoolExecutor: flock and lockf cross even with bubblewrap, every channel without
it), or hidden first without the fallback's clean-up (sandbox.run.RunSandbox.after_child
without remove_leftovers: /dev/shm and System V shm cross).
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from helpers import grade_root

from autograder import sandbox
from autograder.backends import Placement

HERE = Path(__file__).parent
ATTACK = HERE / "adversarial" / "channel_all.py"
CHANNELS = ["flock", "lockf", "dev_shm", "abstract_socket", "loopback_tcp", "loopback_udp",
            "signal", "proc", "sysv_shm"]
# channels a detector cannot see within one child on a setting (its control is then void)
NO_CONTROL: dict[str, set[str]] = {}


def free_ports(n: int) -> list[int]:
    """n loopback ports free for TCP and UDP right now."""
    out: list[int] = []
    while len(out) < n:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
            try:
                u.bind(("127.0.0.1", port))
            except OSError:
                continue
        if port not in out:
            out.append(port)
    return out


def channel_source() -> str:
    cross, own = free_ports(2)
    return (ATTACK.read_text().replace("__PORT_CROSS__", str(cross))
            .replace("__PORT_SELF__", str(own)))


def what_public_saw(toy, tmp_path: Path, policy: sandbox.SandboxPolicy,
                    placement: Placement | None = None) -> dict:
    """Grade channel_all.py; {"control": {channel: seen}, "crossed": {channel: seen}}, as the
    public child reported it (its test_add message), plus the grade."""
    pkg = tmp_path / "channels" / "toy"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(channel_source())
    grade = grade_root(toy, tmp_path / "channels", policy=policy,
                                  placement=placement)
    message = next(t.message for t in grade.tests if t.id == "test_add")
    assert "SEEN" in message, message
    seen = json.loads(message.split("SEEN")[1])
    seen["grade"] = grade
    return seen


SETTINGS = {"host": ("host", ""), "host_without_namespaces": ("host", "namespaces"),
            "docker": ("docker", "")}


@pytest.fixture(scope="module", params=sorted(SETTINGS))
def seen(request, toy_course, tmp_path_factory):
    from autograder.assignments import load

    backend, disable = SETTINGS[request.param]
    if backend == "docker":
        request.getfixturevalue("engine")  # skips where podman cannot run
    policy = sandbox.SandboxPolicy("auto", disabled=frozenset(filter(None, [disable])))
    caps = sandbox.capabilities(policy)
    if backend == "host" and not (caps.namespaces or caps.user):
        pytest.skip("neither the namespaces nor the user layer here: "
                    + "; ".join(caps.why.values()))
    out = what_public_saw(load("toy", toy_course), tmp_path_factory.mktemp("ch"), policy,
                          Placement(backend))
    out["setting"] = request.param
    return out


def check_channel(seen: dict, channel: str, setting: str) -> None:
    """The detector works (it saw the public child's own marker), and nothing crossed."""
    if channel not in NO_CONTROL.get(setting, set()):
        assert seen["control"][channel], f"{channel}: the detector is blind here: {seen}"
    assert not seen["crossed"][channel], f"{channel}: the hidden child reached the public one"
    assert seen["grade"].score == 0


@pytest.mark.parametrize("channel", CHANNELS)
def test_nothing_crosses_from_hidden_to_public(seen, channel):
    check_channel(seen, channel, seen["setting"])


def test_docker_container_cannot_reach_the_host(engine, toy, toy_course, tmp_path):
    """docker_escape.py's attempts from inside a container: the host's goldens, the engine's
    API socket, writing the run folder or the image, root's powers (chown, mknod, setuid,
    mount), the network, other run folders, the host's processes: each fails."""
    socket_path = engine["url"].removeprefix("unix://")
    source = ((HERE / "adversarial" / "docker_escape.py").read_text()
              .replace("__SECRET__", str(toy_course / "tests/toy/goldens/hidden.json"))
              .replace("__SOCKET__", socket_path))
    pkg = tmp_path / "escape" / "toy"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(source)
    policy = sandbox.SandboxPolicy.create("auto")
    grade = grade_root(toy, tmp_path / "escape", policy=policy,
                                  placement=Placement("docker"))
    message = next(t.message for t in grade.tests if t.id == "test_add")
    seen = json.loads(message.split("SEEN")[1])
    assert seen.pop("host_goldens") == "FileNotFoundError", seen
    assert seen.pop("engine_socket") == "FileNotFoundError", seen
    assert seen.pop("docker_sock") == "FileNotFoundError", seen
    assert seen.pop("write_run_folder") == "OSError", seen  # read-only bind mount
    assert seen.pop("write_image") == "OSError", seen  # read-only root
    assert seen.pop("chown_root") == "PermissionError", seen
    assert seen.pop("mknod") == "PermissionError", seen
    assert seen.pop("setuid_root") == "PermissionError", seen
    assert seen.pop("mount") == "Operation not permitted", seen
    assert seen.pop("network") != "connected", seen  # network "none": no route
    assert seen.pop("other_runs") == [], seen
    assert seen.pop("host_processes") < 10, seen  # its own PID namespace
    assert grade.score == 0
