"""sandbox/uids.py: the sweep of a slot uid (`kill_uid` passes over the processes that have
ended, zombies waiting for their parent: a warm child's are its zygote's to reap; never over
one whose main thread exited alone while another of its threads runs on), and the slot range
(a container's own, apart from the host's)."""

from __future__ import annotations

import ctypes
import os
import signal
import threading
import time

from autograder.sandbox import uids

SYS_EXIT = {"x86_64": 60, "aarch64": 93}.get(os.uname().machine)


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def _wait_for(pid: int, state: str) -> None:
    deadline = time.monotonic() + 30
    while _state(pid) != state and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _state(pid) == state


def test_a_zombie_has_ended():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    try:
        _wait_for(pid, "Z")
        assert uids._ended(str(pid))
    finally:
        os.waitpid(pid, 0)
    assert uids._ended(str(pid))  # gone


def test_a_zombie_leader_whose_thread_runs_has_not_ended():
    assert SYS_EXIT is not None, os.uname().machine
    pid = os.fork()
    if pid == 0:  # the leader exits alone (SYS_exit, not exit_group); its thread runs on
        threading.Thread(target=lambda: time.sleep(60)).start()
        ctypes.CDLL(None).syscall(SYS_EXIT, 0)
        os._exit(1)  # not reached
    try:
        _wait_for(pid, "Z")
        assert not uids._ended(str(pid))
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def test_each_pid_namespace_takes_its_slots_from_a_range_of_its_own():
    """A rootful container without a user namespace shares the host's uids but not its /tmp
    (the slot locks): with one range, a host grader's kill(-1) as its slot uid killed a child in
    the container (test_gradescope's container runs failed so under the parallel suite)."""
    host = uids.slot_uid_base("", "pid:[4026531836]")  # the initial PID namespace
    container = uids.slot_uid_base("", "pid:[4026532871]")
    assert abs(host - container) >= uids.SLOT_SPAN  # disjoint (these two; 1/4096 for any two)
    for base in (host, container):
        assert uids.UID_RANGES_BASE <= base <= uids.UID_RANGES_BASE + uids.SLOT_SPAN * (
            uids.UID_RANGES - 1) and (base - uids.UID_RANGES_BASE) % uids.SLOT_SPAN == 0
    assert uids.UID_RANGES_BASE + uids.SLOT_SPAN * uids.UID_RANGES < 2**31  # a valid uid
    assert uids.slot_uid_base("", "pid:[4026532871]") == container  # the same every time
    assert uids.SLOT_UID_BASE == uids.slot_uid_base("", os.readlink("/proc/self/ns/pid"))
    assert uids.slot_uid_base("1900000000", "pid:[4026532871]") == 1_900_000_000  # the variable
