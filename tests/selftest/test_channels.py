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

from autograder import sandbox
from autograder.grading import grade_submission_root

HERE = Path(__file__).parent
ATTACK = HERE / "adversarial" / "channel_all.py"
CHANNELS = ["flock", "lockf", "dev_shm", "abstract_socket", "loopback_tcp", "loopback_udp",
            "signal", "proc", "sysv_shm"]
# channels a detector cannot see within one child on this setting (the control is then void)
NO_CONTROL = {"docker": {"sysv_shm"}}


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


def what_public_saw(toy, tmp_path: Path, policy: sandbox.SandboxPolicy) -> dict:
    """Grade channel_all.py; {"control": {channel: seen}, "crossed": {channel: seen}}, as the
    public child reported it (its test_add message), plus the grade."""
    pkg = tmp_path / "channels" / "toy"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(channel_source())
    grade = grade_submission_root(toy, tmp_path / "channels", policy=policy)
    message = next(t.message for t in grade.tests if t.id == "test_add")
    assert "SEEN" in message, message
    seen = json.loads(message.split("SEEN")[1])
    seen["grade"] = grade
    return seen


SETTINGS = {"host": "", "host_without_namespaces": "namespaces"}


@pytest.fixture(scope="module", params=sorted(SETTINGS))
def seen(request, toy_course, tmp_path_factory):
    from autograder.assignments import load

    mp = pytest.MonkeyPatch()
    try:
        if SETTINGS[request.param]:
            mp.setenv(sandbox.ENV_DISABLE, SETTINGS[request.param])
        policy = sandbox.SandboxPolicy.create("auto")
        caps = sandbox.capabilities(policy)
        if not (caps.namespaces or caps.user):
            pytest.skip("neither the namespaces nor the user layer here: "
                        + "; ".join(caps.why.values()))
        out = what_public_saw(load("toy", toy_course), tmp_path_factory.mktemp("ch"), policy)
    finally:
        mp.undo()
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
