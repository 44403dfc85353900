"""The seccomp filter (sandbox/seccomp.py) and the program it assembles, read by a small BPF
interpreter here on both machines it serves: every entry refuses its calls with its errno, every
other call is allowed, clone is refused only with a namespace flag, a foreign architecture and
x32 are killed; its numbers are libseccomp's; the Docker profile holds the same rules; the
table in docs/SECURITY.md lists every entry.

A real sandboxed child, cold, warm, without bubblewrap (seccomp.py loads the filter) and in a
container (tests/selftest/adversarial/kernel_probe.py: each family the filter refuses) gets
EPERM (clone3: ENOSYS) and reaches no listener of its own, which only an earlier filter's
refusal keeps a call from; with an allow-all program in the filter's place (wired here, in the
test: the product has no switch for it) the same check fails for every family. The holder and
the zygote (adversarial/holder_probe.py) and the next child
(adversarial/state_probe.py) are in test_kernel_state.py.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import struct
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import grade_root, submission

from autograder import sandbox, settings
from autograder.backends import Placement, host, warmbox
from autograder.sandbox import seccomp

ROOT = Path(__file__).resolve().parents[2]
ATTACKS = Path(__file__).parent / "adversarial"
POLICY = sandbox.SandboxPolicy.create()
ALLOW, KILL = seccomp.RET_ALLOW, seccomp.RET_KILL_PROCESS
ALLOW_ALL = struct.pack("=HBBI", seccomp.RET_K, 0, 0, seccomp.RET_ALLOW)


def evaluate(prog: bytes, arch: int, nr: int, arg0: int = 0) -> int:
    """What the classic BPF program returns for one call (the opcodes seccomp.py emits)."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)
    code = [struct.unpack("=HBBI", prog[i:i + 8]) for i in range(0, len(prog), 8)]
    pc, acc = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        if op == seccomp.LD_W_ABS:
            acc, pc = struct.unpack_from("<I", data, k)[0], pc + 1
        elif op in (seccomp.JEQ_K, seccomp.JGE_K, seccomp.JSET_K):
            taken = {seccomp.JEQ_K: acc == k, seccomp.JGE_K: acc >= k,
                     seccomp.JSET_K: bool(acc & k)}[op]
            pc += 1 + (jt if taken else jf)
        else:
            assert op == seccomp.RET_K, op
            return k


def refused_calls(machine: str) -> dict[int, seccomp.Rule]:
    column = list(seccomp.AUDIT_ARCH).index(machine)
    return {seccomp.NUMBERS[name][column]: rule for rule in seccomp.RULES
            for name in rule.names if seccomp.NUMBERS[name][column] is not None}


@pytest.mark.parametrize("machine", sorted(seccomp.AUDIT_ARCH))
def test_every_entry_refuses_its_calls_and_nothing_else(machine):
    prog, arch = seccomp.program(machine), seccomp.AUDIT_ARCH[machine]
    refused = refused_calls(machine)
    assert len(refused) >= 50
    for nr in range(0, 512):
        rule = refused.get(nr)
        got = evaluate(prog, arch, nr)
        if rule is None or rule.any_bits or rule.one_of:
            assert got == ALLOW, (machine, nr)  # (a conditional entry's plain call: allowed)
        else:
            assert got == seccomp.RET_ERRNO | rule.errno, (machine, nr, rule.names)
    clone3 = seccomp.NUMBERS["clone3"][0]
    assert evaluate(prog, arch, clone3) == seccomp.RET_ERRNO | seccomp.ENOSYS


@pytest.mark.parametrize("machine", sorted(seccomp.AUDIT_ARCH))
def test_clone_socket_and_personality_are_refused_by_their_argument(machine):
    prog, arch = seccomp.program(machine), seccomp.AUDIT_ARCH[machine]
    column = list(seccomp.AUDIT_ARCH).index(machine)
    clone, socket, persona = (seccomp.NUMBERS[n][column] for n in ("clone", "socket",
                                                                   "personality"))
    eperm = seccomp.RET_ERRNO | seccomp.EPERM
    thread = 0x003D0F00  # glibc's pthread_create: CLONE_VM | CLONE_FS | ... | CLONE_SETTLS
    for flags in (0x11 | 0x01200000, thread, 0x4111):  # fork, a thread, vfork
        assert evaluate(prog, arch, clone, flags) == ALLOW
    for name, flag in seccomp.CLONE_NEW.items():
        assert evaluate(prog, arch, clone, flag | 0x11) == eperm, name
    for family in (1, 2, 10, 16, 17):  # unix, inet, inet6, netlink, packet
        assert evaluate(prog, arch, socket, family) == ALLOW
    for family in (seccomp.AF_ALG, seccomp.AF_VSOCK):
        assert evaluate(prog, arch, socket, family) == eperm
    for value in (0, 0x0008, 0x20000, 0x20008):
        assert evaluate(prog, arch, persona, value) == ALLOW
    for value in (0x0040000, 0x0400000, 0xFFFFFFFF):  # ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC
        assert evaluate(prog, arch, persona, value) == eperm


def test_another_architecture_and_x32_are_killed():
    x86, arm = seccomp.program("x86_64"), seccomp.program("aarch64")
    i386, arm32 = 0x40000003, 0x40000028  # AUDIT_ARCH_I386, AUDIT_ARCH_ARM
    for prog, foreign in ((x86, i386), (x86, seccomp.AUDIT_ARCH["aarch64"]), (arm, arm32),
                          (arm, seccomp.AUDIT_ARCH["x86_64"])):
        assert evaluate(prog, foreign, 0) == KILL
        assert evaluate(prog, foreign, 1) == KILL
    read = 0
    assert evaluate(x86, seccomp.AUDIT_ARCH["x86_64"], read) == ALLOW
    assert evaluate(x86, seccomp.AUDIT_ARCH["x86_64"], read | seccomp.X32_SYSCALL_BIT) == KILL


LIBSECCOMP = ctypes.util.find_library("seccomp")


@pytest.mark.skipif(LIBSECCOMP is None, reason="libseccomp is not installed")
def test_numbers_are_libseccomps():
    """Each number of the table is the one libseccomp resolves for the name on that machine
    (names newer than the installed libseccomp are skipped: open_tree_attr is 467 on both)."""
    lib = ctypes.CDLL(LIBSECCOMP)
    lib.seccomp_syscall_resolve_name_arch.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
    checked = 0
    for name, numbers in seccomp.NUMBERS.items():
        for arch, nr in zip(seccomp.AUDIT_ARCH.values(), numbers, strict=True):
            theirs = lib.seccomp_syscall_resolve_name_arch(arch, name.encode())
            if theirs < 0:  # unknown to libseccomp here, or no such call on that machine
                assert nr is None or name == "open_tree_attr", (name, hex(arch))
                continue
            assert nr == theirs, (name, hex(arch), nr, theirs)
            checked += 1
    assert checked >= 100


def test_the_docker_profile_holds_the_same_rules():
    profile = json.loads(seccomp.docker_profile())
    assert profile["defaultAction"] == "SCMP_ACT_ALLOW"
    plain = {n: s["errnoRet"] for s in profile["syscalls"] if "args" not in s
             for n in s["names"]}
    conditional = {n for s in profile["syscalls"] if "args" in s for n in s["names"]}
    for rule in seccomp.RULES:
        for name in rule.names:
            if rule.any_bits or rule.one_of:
                assert name in conditional and name not in plain
            else:
                assert plain[name] == rule.errno
    clone_bits = {a["value"] for s in profile["syscalls"] if s["names"] == ["clone"]
                  for a in s["args"]}
    assert sum(clone_bits) == seccomp.ANY_CLONE_NEW


def test_security_md_has_a_row_for_every_entry():
    text = (ROOT / "docs" / "SECURITY.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    named = {name for line in rows for name in line.split("|")[1].replace("`", "").replace(
        ",", " ").split()}
    for rule in seccomp.RULES:
        assert set(rule.names) <= named, rule.names


def probe(toy, tmp_path: Path, source: str, path: str, name: str) -> dict:
    """Grade `source` as the toy package (public tests), warm, cold or in containers
    (`docker`); what test_add said."""
    policy = NO_BWRAP if path == "no bubblewrap" else POLICY
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(settings.WARM.name, "1" if path == "warm" else "0")
        if path == "warm":
            assert host.BACKEND.warm_zygotes().get(toy) is not None
        placement = Placement("docker") if path == "docker" else None
        grade = grade_root(toy, submission(tmp_path, source, name), ("public",),
                                      policy=policy, placement=placement)
    assert grade.run.path == ("warm" if path == "warm" else "cold"), grade.problems
    message = next(t.message for t in grade.tests if t.id == "test_add")
    assert "SEEN" in message, [message, *grade.problems]
    return json.loads(message.split("SEEN")[1])


WARM = warmbox.probe(POLICY)
PATHS = ["cold", pytest.param("warm", marks=pytest.mark.skipif(
    WARM is not None, reason=f"no warm path here: {WARM}")), "no bubblewrap"]
NO_BWRAP = replace(POLICY, disabled=POLICY.disabled | {"namespaces"})
FAMILIES = ["keyrings", "ptrace", "process_vm", "perf", "bpf", "userfaultfd", "io_uring",
            "mounts", "unshare_setns", "clone_namespaces", "clone3", "file_handles",
            "kexec_modules"]
_SEEN: dict[tuple[str, bool], dict] = {}


@pytest.fixture
def kernel_seen(toy, tmp_path, monkeypatch):
    """What kernel_probe.py saw on `path`, with the real filter or (filter=False) an
    allow-all program in its place; one grading per (path, filter) in this process."""
    if not sandbox.capabilities(POLICY).namespaces:
        pytest.skip("no namespaces layer here")

    def seen(path: str, real: bool) -> dict:
        if (path, real) not in _SEEN:
            if not real:
                monkeypatch.setattr(seccomp, "program", lambda machine=None: ALLOW_ALL)
            source = (ATTACKS / "kernel_probe.py").read_text()
            _SEEN[path, real] = probe(toy, tmp_path, source, path,
                                      f"{path}-{'real' if real else 'off'}")
            monkeypatch.undo()
        return _SEEN[path, real]

    return seen


def assert_refused(family: str, calls: list) -> None:
    """Every call of the family: refused with EPERM (clone3: ENOSYS) by the sandbox's filter,
    before the probe's own listener saw it."""
    want = seccomp.ENOSYS if family == "clone3" else seccomp.EPERM
    assert calls and all(c[1] == -1 and c[2] == want and c[3] is False for c in calls), calls


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("path", PATHS)
def test_family_refused(kernel_seen, path, family):
    assert_refused(family, kernel_seen(path, True)[family])


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("path", PATHS)
def test_family_check_fails_without_the_filter(kernel_seen, path, family):
    calls = kernel_seen(path, False)[family]
    with pytest.raises(AssertionError):
        assert_refused(family, calls)
    assert all(c[3] is True for c in calls), calls  # each reached the probe's listener


@pytest.mark.parametrize("real", [True, False], ids=["filter", "allow-all"])
def test_families_in_a_container(toy, tmp_path, monkeypatch, engine, real):
    """The docker backend's containers run under the same rules (seccomp.docker_profile in
    place of the engine's default profile): every family refused; with an allow-all profile in
    its place, every family's check fails."""
    if not real:
        monkeypatch.setattr(seccomp, "docker_profile",
                            lambda: json.dumps({"defaultAction": "SCMP_ACT_ALLOW"}))
    seen = probe(toy, tmp_path, (ATTACKS / "kernel_probe.py").read_text(), "docker", "docker")
    for family in FAMILIES:
        if real:
            assert_refused(family, seen[family])
        else:
            with pytest.raises(AssertionError):
                assert_refused(family, seen[family])
