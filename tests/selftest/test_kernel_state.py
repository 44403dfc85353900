"""A child alone in the kernel (SPEC §3, "No channel between children"): nothing the previous
child created in the kernel is there for the next, and no child reaches its holder or zygote.

- The next child of the same grader process (adversarial/state_probe.py, cold, warm and
  without bubblewrap) runs under another uid and finds none of the previous child's System V
  message queue (its own IPC namespace; without one, the uid's objects removed) or inotify
  instances (its daemon killed); the key it tried to leave in its uid's keyring and the POSIX
  message queue were refused (EPERM). Mutants: the IPC namespace left out of bubblewrap's
  arguments (the System V queue is found); an allow-all program in the seccomp filter's place
  (the key and the POSIX queue are made).
- A warm child (adversarial/holder_probe.py) can neither signal, trace, read the memory of nor
  open /proc/PID/mem of its holder (another uid, non-dumpable, the filter) or its zygote
  (outside its PID namespace). Mutant: the holder under the child's own uid and no filter.
- The holder, seen from the grader: the slot's holder uid, non-dumpable (its /proc/PID files
  are root's), no_new_privs, under a seccomp filter.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import grade_root, submission

from autograder import sandbox, settings
from autograder.backends import holder, host, warmbox
from autograder.sandbox import bwrap, seccomp, uids

ATTACKS = Path(__file__).parent / "adversarial"
POLICY = sandbox.SandboxPolicy.create()
CAPS = sandbox.capabilities(POLICY)
WARM = warmbox.probe(POLICY)
ALLOW_ALL = bytes.fromhex("06000000" "0000ff7f")  # ret SECCOMP_RET_ALLOW
pytestmark = pytest.mark.skipif(not (CAPS.namespaces and CAPS.user),
                                reason="needs the namespaces and user layers")
NAMESPACED = ["cold", pytest.param("warm", marks=pytest.mark.skipif(
    WARM is not None, reason=f"no warm path here: {WARM}"))]
NO_BWRAP = replace(POLICY, disabled=POLICY.disabled | {"namespaces"})
PATHS = [*NAMESPACED, pytest.param(  # the cold chain without the namespaces layer
    "no bubblewrap", marks=pytest.mark.skipif(not sandbox.capabilities(NO_BWRAP).user, reason=(
        f"no user layer without bubblewrap: {sandbox.capabilities(NO_BWRAP).why.get('user')}")))]
ENOENT, EPERM = 2, 1


def seen(toy, tmp_path: Path, name: str, path: str, **fill: str) -> dict:
    """Grade the attack file `name` (placeholders filled) as the toy package, public tests, on
    `path`; what its test_add said."""
    source = (ATTACKS / f"{name}.py").read_text()
    for key, value in fill.items():
        source = source.replace(f"__{key}__", value)
    policy = NO_BWRAP if path == "no bubblewrap" else POLICY
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(settings.WARM.name, "1" if path == "warm" else "0")
        if path == "warm":
            assert host.BACKEND.warm_zygotes().get(toy) is not None
        sub = submission(tmp_path, source, f"{name}-{len(list(tmp_path.iterdir()))}")
        grade = grade_root(toy, sub, ("public",), policy=policy)
    assert grade.run.path == ("warm" if path == "warm" else "cold"), grade.problems
    message = next(t.message for t in grade.tests if t.id == "test_add")
    assert "SEEN" in message, [message, *grade.problems]
    return json.loads(message.split("SEEN")[1])


def leave_then_look(toy, tmp_path: Path, path: str) -> tuple[dict, dict]:
    key, name = str(0x5EC0000 + os.getpid() % 0xFFFF), f"leak-{os.getpid()}"
    left = seen(toy, tmp_path, "state_probe", path, MODE="leave", KEY=key, NAME=name)
    looked = seen(toy, tmp_path, "state_probe", path, MODE="look", KEY=key, NAME=name)
    return left, looked


def remove_host_queues(key: int, name: str) -> None:
    """What a mutant's child left in the host's IPC namespace."""
    libc = ctypes.CDLL(None, use_errno=True)
    ident = libc.msgget(key, 0)
    if ident >= 0:
        libc.msgctl(ident, 0, None)  # IPC_RMID
    libc.mq_unlink(f"/{name}".encode())


def assert_nothing_found(left: dict, looked: dict) -> None:
    assert left["msgget"][0] >= 0, left  # it was made
    assert left["uid"] != looked["uid"], "the next child runs under the same uid"
    assert looked["msgget"] == [-1, ENOENT], looked
    assert looked["mq_open"] in ([-1, ENOENT], [-1, EPERM]), looked
    assert looked["inotify"] >= left["inotify"] > 0, (left, looked)


@pytest.mark.parametrize("path", PATHS)
def test_the_next_child_finds_nothing(toy, tmp_path, path):
    left, looked = leave_then_look(toy, tmp_path, path)
    assert_nothing_found(left, looked)
    assert left["add_key"] == [-1, EPERM] and looked["keyctl_search"] == [-1, EPERM]
    assert left["mq_open"] == [-1, EPERM]  # the filter refuses POSIX message queues


@pytest.mark.parametrize("path", NAMESPACED)
def test_without_an_ipc_namespace_the_queue_is_found(toy, tmp_path, monkeypatch, path):
    wrapper = bwrap.wrapper
    monkeypatch.setattr(bwrap, "wrapper", lambda *a, **k: [
        arg for arg in wrapper(*a, **k) if arg != "--unshare-ipc"])
    try:
        left, looked = leave_then_look(toy, tmp_path, path)
        with pytest.raises(AssertionError):
            assert_nothing_found(left, looked)
        assert looked["msgget"][0] >= 0, looked
    finally:
        remove_host_queues(0x5EC0000 + os.getpid() % 0xFFFF, f"leak-{os.getpid()}")


@pytest.mark.parametrize("path", PATHS)
def test_without_the_filter_the_key_is_added(toy, tmp_path, monkeypatch, path):
    monkeypatch.setattr(seccomp, "program", lambda machine=None: ALLOW_ALL)
    try:
        left, looked = leave_then_look(toy, tmp_path, path)
        assert left["add_key"][0] > 0 and left["mq_open"][0] >= 0, left  # a key, a queue
        assert left["uid"] != looked["uid"] and looked["keyctl_search"][1] != 0, looked
        clear_user_keyring(left["uid"])
    finally:
        remove_host_queues(0x5EC0000 + os.getpid() % 0xFFFF, f"leak-{os.getpid()}")


def clear_user_keyring(uid: int) -> None:
    """Empty the user keyring of `uid`, a slot's (KEYCTL_CLEAR of @u, run as that uid)."""
    assert uid >= uids.SLOT_UID_BASE, uid
    code = ("import ctypes, os; n = 250 if os.uname().machine == 'x86_64' else 219; "
            "ctypes.CDLL(None).syscall(n, 7, -4, 0)")
    subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                    sys.executable, "-I", "-S", "-c", code], check=False, timeout=60)


def holder_attack(toy, tmp_path: Path) -> dict:
    zygote = host.BACKEND.warm_zygotes().get(toy)
    return seen(toy, tmp_path, "holder_probe", "warm", ZYGOTE_PID=str(zygote.proc.pid))


@pytest.mark.skipif(WARM is not None, reason=f"no warm path here: {WARM}")
def test_a_child_cannot_reach_its_holder_or_zygote(toy, tmp_path):
    got = holder_attack(toy, tmp_path)
    assert got["holder"]["found"] and got["holder"]["uid"] != got["self_uid"], got
    for target in ("holder", "zygote"):
        reached = {k: v for k, v in got[target].items() if k not in ("found", "uid") and v}
        assert reached == {}, (target, got)


@pytest.mark.skipif(WARM is not None, reason=f"no warm path here: {WARM}")
def test_a_holder_under_the_childs_uid_without_the_filter_is_reached(toy, tmp_path,
                                                                     monkeypatch):
    wrapper = uids.Slot.wrapper
    monkeypatch.setattr(uids.Slot, "wrapper", lambda self, holder=False: wrapper(self))
    monkeypatch.setattr(seccomp, "program", lambda machine=None: ALLOW_ALL)
    got = holder_attack(toy, tmp_path)
    assert got["holder"]["uid"] == got["self_uid"], got
    assert got["holder"]["kill"] and got["holder"]["ptrace"] and got["holder"]["mem"], got


def holder_shell(pid: int) -> int:
    """The holder's shell: the child of the sandbox's first process (bwrap's init)."""
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        children = [int(c) for c in f.read().split()]
    assert len(children) == 1, children
    return children[0]


def test_the_holder_is_alone_non_dumpable_and_filtered():
    run = Path(tempfile.mkdtemp(prefix="grade-holder-test-"))
    for sub in ("work", "tmp", "lib"):
        (run / sub).mkdir()
    box = sandbox.RunSandbox(run, POLICY)
    proc, pid = holder.start_holder(box, [], [])
    try:
        shell = holder_shell(pid)
        with open(f"/proc/{shell}/status") as f:
            status = dict(ln.split(":", 1) for ln in f.read().splitlines() if ":" in ln)
        assert status["Uid"].split() == [str(box.slot.holder_uid)] * 4
        assert box.slot.holder_uid != box.slot.uid
        assert os.stat(f"/proc/{shell}/status").st_uid == 0  # non-dumpable: root's
        assert status["NoNewPrivs"].strip() == "1" and status["Seccomp"].strip() == "2"
        assert status["CapEff"].strip() == "0000000000000000"
        pidfd = os.pidfd_open(pid)
        assert not select.select([pidfd], [], [], 0)[0]  # the sandbox still stands
        os.close(pidfd)
    finally:
        host.kill_group(proc)
        box.after_child()
        box.close()
        shutil.rmtree(run, ignore_errors=True)


def test_each_child_of_a_run_gets_another_uid():
    """A run's children take a slot each, released when the child ends: the uid the events
    file is given changes from one child to the next."""
    run = Path(tempfile.mkdtemp(prefix="grade-uid-test-"))
    for sub in ("work", "tmp", "lib"):
        (run / sub).mkdir()
    box = sandbox.RunSandbox(run, POLICY)
    try:
        owners = []
        for i in range(3):
            owners.append(os.stat(box.new_output_file(run / f"events-{i}")).st_uid)
            box.after_child()
        assert len(set(owners)) == 3 and all(o >= uids.SLOT_UID_BASE for o in owners), owners
        gid = box._slot().gid
        assert os.stat(run).st_gid == gid  # the run folder is the next child's
    finally:
        box.close()
        shutil.rmtree(run, ignore_errors=True)


@pytest.mark.skipif(WARM is not None, reason=f"no warm path here: {WARM}")
def test_a_child_the_zygote_refuses_runs_cold_under_a_fresh_slot(toy, monkeypatch):
    """A warm start that fails releases its slot (after_child) and the child runs cold under
    the next one: its events file is that uid's, and it scores as any child."""
    assert host.BACKEND.warm_zygotes().get(toy) is not None

    def refuse(self, request, fds):
        raise OSError("refused")

    monkeypatch.setattr(warmbox.Zygote, "spawn", refuse)
    monkeypatch.setenv(settings.WARM.name, "1")
    grade = grade_root(toy, toy.solutions, ("public",), policy=POLICY)
    assert grade.run.path == "cold", grade.run.path
    assert grade.score == grade.max_score > 0, grade.problems
