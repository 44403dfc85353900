"""The sandbox against the adversarial corpus (tests/selftest/adversarial/, one hostile toy
submission per attack) and hostile submission archives.

Each attack must score no more than the untouched starter, leave a concurrently graded good
submission's grade unchanged, let the grader finish within its limits, and leave nothing behind.
Where this machine lacks every layer that stops an attack, the attack is skipped with a loud
reason (and `sandbox.report_lines()` names it), never silently passed.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import tempfile
import threading
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers import SOLUTION, command_lines, grade_results, grade_root, submission

from autograder import cli, sandbox, settings
from autograder.backends import host as boxes
from autograder.backends import warmbox
from autograder.grading.cause_text import sentence
from autograder.grading.intake import REFUSED_NAMES
from autograder.sandbox.uids import SLOT_SPAN, SLOT_UID_BASE
from autograder.settings import COURSE_ROOT

HERE = Path(__file__).parent
CORPUS_DIR = HERE / "adversarial"
STARTER_SCORE = 0  # the untouched starter (checked in test_engine)
FULL = 7


def good_score() -> int:
    """What the reference earns under this process's policy: FULL, or nothing where the grader
    refuses the graded tests (no namespaces layer and no separate uid: the child could read a
    grading's expected values; the toy course lives in pytest's private tmp folder, unreadable
    to other users). There is no fallback to the published inputs."""
    caps = sandbox.capabilities(policy())
    return FULL if caps.namespaces or caps.user else 0

# attack file -> the attack it implements (a key of sandbox.ATTACKS, which names the layers)
CORPUS = {
    "exit_early": "early exit (sys.exit, os._exit)",
    "kill_parent": "killing the grader process",
    "lying_objects": "lying __eq__/__lt__/__bool__ objects",
    "monkeypatch": "monkeypatching pytest/numpy/the harness",
    "fake_events": "forged events/observations",
    "read_secrets": "reading goldens, solutions, other submissions on the host",
    "network": "network connections",
    "fork_bomb": "fork bomb",
    "memory_bomb": "memory bomb",
    "disk_fill": "disk fill",
    "loop_c": "endless loop (Python or C)",
    "loop_python": "endless loop (Python or C)",
    "huge_output": "huge output",
    "signals": "signals to other processes",
    "daemon": "daemons/orphans outliving the run",
    "persist": "files persisting into the next run",
    "forbidden_dynamic": "forbidden modules imported dynamically",
}
# what each attack additionally relies on being stopped (checked when relevant)
ALSO = {
    "fake_events": ["writing fake results or other runs' files"],
    "daemon": ["writing fake results or other runs' files"],
    "read_secrets": ["reading hidden tests during public tests"],
    "kill_parent": ["signals to other processes"],
}


def policy(mode: str = "auto", without: frozenset[str] = frozenset()) -> sandbox.SandboxPolicy:
    """The policy a command line with `--isolation mode` makes, with the layers `without`
    turned off (SandboxPolicy.disabled)."""
    return sandbox.SandboxPolicy(mode, disabled=without)


def covered(attack: str, without: frozenset[str] = frozenset()) -> tuple[bool, str]:
    caps = sandbox.capabilities(policy(without=without))
    have = {"engine"} | {layer for layer in sandbox.LAYERS if getattr(caps, layer)}
    need = sandbox.ATTACKS[attack]
    if have & set(need):
        return True, ""
    return False, (f"NOT COVERED on this machine: '{attack}' needs one of the layers "
                   f"{', '.join(need)}; missing: "
                   + "; ".join(f"{k}: {v}" for k, v in caps.why.items()))


class Host:
    """Things on the grader's machine an attack must not reach: a secret (readable by any local
    user), a canary file (owned by the grader), a TCP server on the host's loopback."""

    def __init__(self, goldens: Path):
        self.dir = Path(tempfile.mkdtemp(prefix="adversarial-host-"))
        os.chmod(self.dir, 0o755)
        self.secret = self.dir / "hidden-goldens.json"
        shutil.copy(goldens, self.secret)
        os.chmod(self.secret, 0o644)
        self.canary = self.dir / "canary.txt"
        self.canary.write_text("untouched\n")
        os.chmod(self.canary, 0o644)
        self.connections = 0
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def fill(self, source: str) -> str:
        return (source.replace("__GRADER_PID__", str(os.getpid()))
                .replace("__CANARY__", str(self.canary)).replace("__SECRET__", str(self.secret))
                .replace("__PORT__", str(self.port)))

    def assert_untouched(self) -> None:
        assert self.canary.read_text() == "untouched\n", "a host file was rewritten"
        assert not (self.canary / "results.json").exists()
        assert self.connections == 0, "the sandbox reached the host's network"
        leftovers = [p for p in self.dir.iterdir()
                     if p.name not in ("hidden-goldens.json", "canary.txt")]
        assert not leftovers, f"files written on the host: {leftovers}"

    def close(self) -> None:
        self.server.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def host(toy_course):
    h = Host(toy_course / "tests" / "toy" / "goldens" / "hidden.json")
    yield h
    h.close()



LEAK_GRACE_S = 1.0  # what is neither dying nor gone this much later outlived its run


def _dying(pid: int) -> bool:
    """Whether the process is exiting already: a zombie, or SIGKILL pending (bwrap's inner
    process gets it when the outer one it serves is killed: --die-with-parent)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    if fields.get("State", "").strip()[:1] in ("Z", "X"):
        return True
    sigkill = 1 << 8  # signal 9's bit in the pending masks
    return any(int(fields.get(k, "0").strip() or "0", 16) & sigkill for k in ("SigPnd", "ShdPnd"))


def _orphaned_children() -> dict[int, str]:
    out = {}
    for pid, argv in command_lines().items():
        for arg in argv:
            text = arg.decode("utf-8", "replace")
            if text.endswith("/lib/autograder/harness/boot.py"):
                run = Path(text).parents[3]
                if not run.exists() and not _dying(pid):
                    out[pid] = " ".join(a.decode("utf-8", "replace") for a in argv)
    return out


def leaked_processes() -> list[str]:
    """Graded children (boot.py) whose run folder no longer exists, that are not exiting and
    still there LEAK_GRACE_S later: they outlived their run. (The scan sees the whole machine:
    a concurrent test's child, killed a moment ago, may still be on its way out.)"""
    found = _orphaned_children()
    if found:
        time.sleep(LEAK_GRACE_S)
        now = _orphaned_children()
        found = {pid: argv for pid, argv in found.items() if now.get(pid) == argv}
    return [f"{pid}: {argv}" for pid, argv in found.items()]


def hidden_texts(toy_course: Path) -> list[str]:
    """Lines of hidden test source and hidden inputs that must never reach the student."""
    source = (toy_course / "tests/toy/hidden/test_more.py").read_text()
    inputs = (toy_course / "tests/toy/inputs/hidden.json").read_text()
    return ["rec.close(\"mean\"", "rtol=1e-12", "test_more", inputs[10:40], source[-40:]]


def visible_text(grade) -> str:
    """Everything the student would see: problems, notes, public messages, hidden messages."""
    parts = [*map(sentence, grade.problems), *grade.notes]
    for t in grade.tests:
        parts += [t.message, *t.hints]
    return "\n".join(parts)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_attack_is_stopped(name, toy, toy_course, tmp_path, host):
    attack = CORPUS[name]
    ok, why = covered(attack)
    if not ok:
        pytest.skip(why)
    for extra in ALSO.get(name, []):
        if not covered(extra)[0]:
            pytest.skip(covered(extra)[1])
    source = host.fill((CORPUS_DIR / f"{name}.py").read_text())
    bad = submission(tmp_path, source, "attacker")
    good = submission(tmp_path, SOLUTION, "good")
    started = time.monotonic()
    with ThreadPoolExecutor(2) as pool:
        bad_future = pool.submit(grade_root, toy, bad)
        time.sleep(0.05)
        good_future = pool.submit(grade_root, toy, good)
        bad_grade, good_grade = bad_future.result(), good_future.result()
    wall = time.monotonic() - started
    assert bad_grade.score <= STARTER_SCORE, visible_text(bad_grade)
    assert good_grade.score == FULL, visible_text(good_grade)
    assert wall < toy.run_timeout, f"the grader took {wall:.1f} s"
    time.sleep(0.2)  # a daemon that survived would act now
    assert leaked_processes() == []
    host.assert_untouched()
    shown = visible_text(bad_grade)
    assert len(shown) < 20000, "the report is not capped"
    for text in hidden_texts(toy_course):
        assert text not in shown, f"hidden test content leaked: {text!r}"
    # the next submission graded after the attack is unaffected
    if name in ("persist", "daemon", "fake_events", "monkeypatch"):
        assert grade_root(toy, good).score == FULL


def test_persist_leaves_nothing_in_shared_places():
    mark = "autograder_attack_canary"
    import site
    import sysconfig
    places = [*site.getsitepackages(), sysconfig.get_paths()["stdlib"], "/tmp", "/var/tmp",
              "/dev/shm", site.getusersitepackages()]
    found = [str(p) for d in places if os.path.isdir(d) for p in Path(d).glob(f"zz_{mark}*")]
    for p in found:
        os.unlink(p)
    assert found == []


def test_daemon_really_cannot_act_later(toy, host, tmp_path):
    """A daemon sleeps, then rewrites files: wait long enough that it would have acted."""
    ok, why = covered("daemons/orphans outliving the run")
    if not ok:
        pytest.skip(why)
    source = host.fill((CORPUS_DIR / "daemon.py").read_text())
    grade = grade_root(toy, submission(tmp_path, source, "d"))
    assert grade.score == 0
    time.sleep(0.5)
    assert leaked_processes() == []
    host.assert_untouched()


# ------------------------------------------------------------------ hostile archives / intake


def _zip(path: Path, entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for info, data in entries:
            zf.writestr(info, data)
    return path


def _symlink_entry(name: str, target: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target.encode()


def _device_entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFCHR | 0o666) << 16
    return info, b""


HOSTILE_ZIPS = {
    "traversal": ([("toy/__init__.py", SOLUTION.encode()), ("../../evil.py", b"x = 1\n")],
                  "points outside the submission"),
    "absolute": ([("toy/__init__.py", SOLUTION.encode()), ("/tmp/evil.py", b"x = 1\n")],
                 "points outside the submission"),
    "backslash": ([("toy/__init__.py", SOLUTION.encode()), ("..\\evil.py", b"x = 1\n")],
                  "points outside the submission"),
    "symlink_to_host_file": ([_symlink_entry("toy/__init__.py", "/etc/passwd")],
                             "is a symbolic link"),
    "symlink_to_solution": ([("toy/__init__.py", b"from .sol import *\n"),
                             _symlink_entry("toy/sol.py", "__SOLUTION__")],
                            "is a symbolic link"),
    "device": ([("toy/__init__.py", SOLUTION.encode()), _device_entry("toy/dev.py")],
               "not a regular file"),
    "zip_bomb": ([("toy/__init__.py", b"#" * (60 * 2**20))], "zip"),
    "too_many_entries": ([(f"toy/m{k}.py", b"") for k in range(2100)], "entries"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_ZIPS))
def test_hostile_zip_is_rejected(name, tmp_path, monkeypatch, toy_course):
    monkeypatch.setenv(COURSE_ROOT.name, str(toy_course))
    entries, expected = HOSTILE_ZIPS[name]
    solution_file = toy_course / "solutions" / "toy" / "__init__.py"
    fixed = []
    for info, data in entries:
        fixed.append((info, data.replace(b"__SOLUTION__", str(solution_file).encode())))
    bad = _zip(tmp_path / f"{name}.zip", fixed)
    out = tmp_path / "out"
    started = time.monotonic()
    assert cli.main(["grade", str(bad), "--assignment", "toy", "--out", str(out)]) == 0
    assert time.monotonic() - started < 30
    results = json.loads((out / "results.json").read_text())
    assert results["score"] == 0
    assert expected in results["output"], results["output"]
    assert not (tmp_path / "evil.py").exists() and not Path("/tmp/evil.py").exists()


def test_folder_with_symlink_to_host_file_gets_nothing(toy, tmp_path):
    sub = tmp_path / "sub" / "toy"
    sub.mkdir(parents=True)
    (sub / "__init__.py").symlink_to(toy.solutions / "toy" / "__init__.py")
    assert grade_root(toy, tmp_path / "sub").score == 0
    (sub / "__init__.py").unlink()
    (sub / "__init__.py").write_text("from .sol import *\n")
    (sub / "sol.py").symlink_to(toy.solutions / "toy" / "__init__.py")
    assert grade_root(toy, tmp_path / "sub").score == 0


def test_refused_files_are_named_and_not_staged(toy, tmp_path):
    sub = submission(tmp_path, SOLUTION, "sub")
    evil = "import os\nos._exit(0)\n"
    for name in ["conftest.py", "sitecustomize.py", "usercustomize.py", "pytest.py",
                 "numpy.py", "torch.py", "zz.pth"]:
        (sub / "toy" / name).write_text(evil)
    grade = grade_root(toy, sub)
    assert grade.score == FULL
    note = " ".join(grade.notes)
    for name in ["conftest.py", "sitecustomize.py", "pytest.py", "numpy.py", "zz.pth"]:
        assert name in note
    assert {"conftest.py", "sitecustomize.py", "usercustomize.py"} <= REFUSED_NAMES


# ----------------------------------------------------------------------- layers and modes


def test_missing_layers_are_reported_with_uncovered_attacks():
    without = frozenset({"namespaces", "cgroup"})
    lines = sandbox.report_lines(policy("auto", without))
    text = "\n".join(lines)
    assert "missing layer 'namespaces'" in text and "missing layer 'cgroup'" in text
    assert "network connections" in text and "NOT stopped" in text
    with pytest.raises(sandbox.IsolationError):
        sandbox.require(policy("strict", without))
    assert sandbox.report_lines(policy("none", without))[0].startswith("WARNING: isolation is OFF")


def test_full_isolation_here_or_say_why():
    caps = sandbox.capabilities(policy())
    if not caps.full():
        pytest.skip("this machine lacks layers: " + "; ".join(sandbox.report_lines(policy())))
    assert sandbox.report_lines(policy()) == [] or not caps.cgroup
    sandbox.require(policy("strict"))


def test_child_view_of_the_host(toy, tmp_path, host):
    """What the child sees: no /root home, no repository, no goldens; loopback only; its uid."""
    if not sandbox.capabilities(policy()).namespaces:
        pytest.skip(covered("network connections")[1])
    probe = f'''
import json, os, resource, socket, sys
seen = {{"root": sorted(os.listdir("/root")) if os.path.isdir("/root") else None,
        "repo": os.path.exists({str(Path(cli.__file__).parents[1] / "tests")!r}),
        "secret": os.path.exists({str(host.secret)!r}),
        "uid": os.getuid(), "pid": os.getpid(), "env": sorted(os.environ),
        "as": resource.getrlimit(resource.RLIMIT_AS)[0],
        "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0],
        "fsize": resource.getrlimit(resource.RLIMIT_FSIZE)[0]}}
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); seen["loopback"] = True
raise RuntimeError("SEEN" + json.dumps(seen))
'''
    source = SOLUTION.replace("def add(a: float, b: float) -> float:\n    return a + b",
                              "def add(a, b):\n" + "\n".join(
                                  "    " + ln for ln in probe.strip().splitlines()))
    grade = grade_root(toy, submission(tmp_path, source, "probe"))
    message = next(t.message for t in grade.tests if t.id == "test_add")
    seen = json.loads(message.split("SEEN", 1)[1].split("}", 1)[0] + "}")
    assert seen["repo"] is False and seen["secret"] is False
    assert seen["root"] in (None, [".pyenv"], [])
    assert seen["loopback"] is True
    if os.geteuid() == 0:
        assert seen["uid"] >= SLOT_UID_BASE
    assert "PYTEST_DISABLE_PLUGIN_AUTOLOAD" in seen["env"]
    limits = sandbox.Limits()
    assert seen["as"] == limits.address_space
    assert seen["fsize"] == limits.file_size
    if os.geteuid() == 0:
        assert seen["nproc"] == limits.processes
    assert not [v for v in seen["env"] if "AUTOGRADER" in v or "GITHUB" in v or "CI" == v]


@pytest.mark.parametrize("path", ["cold", "warm"])
def test_each_run_gets_its_own_cgroup_and_uid(toy, tmp_path, path, monkeypatch):
    """While a child runs, it sits in its run's cgroup (memory + pids limits) under its uid,
    on both paths (a cold child, a zygote's fork: backends/warmbox.py)."""
    caps = sandbox.capabilities(policy())
    if not (caps.cgroup and caps.user):
        pytest.skip("no cgroup or user layer here: " + "; ".join(caps.why.values()))
    monkeypatch.setenv(settings.WARM.name, "1" if path == "warm" else "0")
    if path == "warm" and warmbox.probe(policy()) is not None:
        pytest.skip(f"no warm path here: {warmbox.probe(policy())}")
    box, child_class = ((boxes.HostBox, boxes.HostChild) if path == "cold"
                        else (warmbox.WarmBox, warmbox.WarmChild))
    seen: dict = {}
    start, kill = box.start, child_class.kill

    def start_spy(self, *args, **kwargs):
        child = start(self, *args, **kwargs)
        child.spied_sandbox = self.sandbox
        return child

    def kill_spy(self):
        # the child is still running (it sleeps past its test's timeout): its processes are in
        # the cgroup now, while after_child runs only once the kill has taken them away
        run = getattr(self, "spied_sandbox", None)
        if run is not None and run.cgroup is not None and not seen.get("pids"):
            seen["pids"] = run.cgroup.pids()
            seen["uids"] = {os.stat(f"/proc/{p}").st_uid for p in seen["pids"]
                            if os.path.exists(f"/proc/{p}")}
            seen["dirs"] = [str(d) for d in run.cgroup.dirs]
            seen["limits"] = [(d / f).read_text().strip() for d in run.cgroup.dirs
                              for f in ("memory.limit_in_bytes", "pids.max", "memory.max")
                              if (d / f).exists()]
        kill(self)

    source = SOLUTION.replace("def order(xs: list[int]) -> list[int]:",
                              "def order(xs):\n    import time; time.sleep(30)\n\n"
                              "def _unused(xs):")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(box, "start", start_spy)
        mp.setattr(child_class, "kill", kill_spy)
        # (both visibilities: a lone public child starts cold until a zygote is up)
        grade_root(toy, submission(tmp_path, source, "slow"),
                              ("public",) if path == "cold" else ("public", "hidden"))
    assert seen["pids"], "the child was not in the run's cgroup"
    assert SLOT_UID_BASE <= max(seen["uids"]) < SLOT_UID_BASE + SLOT_SPAN
    assert str(sandbox.Limits().memory) in seen["limits"]
    assert str(sandbox.Limits().pids) in seen["limits"]
    assert not any(os.path.exists(d) for d in seen["dirs"])


@pytest.mark.parametrize("name", ["fork_bomb", "memory_bomb"])
def test_fallback_without_namespaces_still_stops(name, toy, tmp_path, host):
    """No bubblewrap: the remaining layers (uid, rlimits, cgroup) still stop these. A check
    (the published inputs: nothing secret, so no refusal whatever the uid layer) runs the
    attack beside the reference, which keeps its full public score."""
    without = frozenset({"namespaces"})
    ok, why = covered(CORPUS[name], without)
    if not ok:
        pytest.skip(why)
    source = host.fill((CORPUS_DIR / f"{name}.py").read_text())
    started = time.monotonic()
    with ThreadPoolExecutor(2) as pool:
        bad = pool.submit(grade_root, toy, submission(tmp_path, source, "a"), ("public",),
                          policy=policy(without=without))
        good = pool.submit(grade_root, toy, submission(tmp_path, SOLUTION, "g"), ("public",),
                           policy=policy(without=without))
        assert bad.result().score <= STARTER_SCORE
        assert good.result().max_score > 0
        assert good.result().score == good.result().max_score
    assert time.monotonic() - started < toy.run_timeout
    assert leaked_processes() == []


def test_cli_strict_refuses_without_full_isolation(tmp_path, monkeypatch, toy_course,
                                                   capsys, without_bubblewrap):
    monkeypatch.setenv(COURSE_ROOT.name, str(toy_course))
    sub = submission(tmp_path, SOLUTION, "s")
    out = tmp_path / "out"
    assert cli.main(["grade", str(sub), "--isolation", "strict", "--out", str(out)]) == 2
    assert not (out / "results.json").exists()
    assert "refusing" in capsys.readouterr().err
    assert cli.main(["grade", str(sub), "--isolation", "auto", "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["score"] == good_score()
    assert ("graded tests NOT RUN" in results["output"]) == (good_score() == 0)
    assert "missing layer 'namespaces'" in results["output"]
    assert "network connections" in results["output"]


def test_cli_none_says_isolation_is_off(tmp_path, monkeypatch, toy_course):
    monkeypatch.setenv(COURSE_ROOT.name, str(toy_course))
    out = tmp_path / "out"
    sub = submission(tmp_path, SOLUTION, "s")
    assert cli.main(["grade", str(sub), "--isolation", "none", "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["score"] == FULL and "isolation is OFF" in results["output"]


@pytest.mark.parametrize("bubblewrap", [True, False], ids=["bwrap", "no-bwrap"])
def test_grader_killed_mid_run_leaves_nothing_running(toy_course, tmp_path, bubblewrap, request):
    """SIGKILL the grader while a submission sleeps: the child dies with it (with bubblewrap,
    and in the fallback on a PATH without it)."""
    import signal
    import subprocess
    import sys
    source = SOLUTION.replace("def add(a: float, b: float) -> float:\n    return a + b",
                              "def add(a, b):\n    import time\n    time.sleep(60)")
    sub = submission(tmp_path, source, "sleeper")
    if not bubblewrap:
        request.getfixturevalue("without_bubblewrap")
    # what a SIGKILLed grader cannot remove (its draw's and run's temporary folders) goes to a
    # TMPDIR of its own, removed here; the slot uids must be able to pass through it
    scratch = Path(tempfile.mkdtemp(prefix="killed-grader-"))
    request.addfinalizer(lambda: shutil.rmtree(scratch, ignore_errors=True))
    scratch.chmod(0o755)
    env = {**os.environ, COURSE_ROOT.name: str(toy_course), "TMPDIR": str(scratch)}
    grader = subprocess.Popen([sys.executable, "-m", "autograder", "grade", str(sub),
                               "--assignment", "toy", "--out", str(tmp_path / "out")],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def descendants(root: int) -> set[int]:
        parent = {}
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
            if fields.get("State", "").startswith("Z"):
                continue
            parent[int(pid)] = int(fields.get("PPid", "0").strip() or 0)
        found, frontier = set(), {root}
        while frontier:
            frontier = {p for p, pp in parent.items() if pp in frontier} - found
            found |= frontier
        return found

    def alive(pids: set[int]) -> set[int]:
        out = set()
        for pid in pids:
            try:
                if not Path(f"/proc/{pid}/status").read_text().split("State:\t")[1].startswith("Z"):
                    out.add(pid)
            except (OSError, IndexError):
                pass
        return out

    def is_graded_python(pid: int) -> bool:
        """A cold child (`python ... boot.py`) or a warm one: a fork of the zygote inside the
        sandbox's PID namespace (two levels of NSpid)."""
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            nspid = Path(f"/proc/{pid}/status").read_text().split("NSpid:")[1].split("\n")[0]
            return (Path(f"/proc/{pid}/comm").read_text().startswith("python")
                    and (b"boot.py" in cmdline
                         or (b"zygote.py" in cmdline and len(nspid.split()) > 1)))
        except (OSError, IndexError):
            return False

    # a wait, not a bound: the grader's imports and its first child (the reference's run on
    # the draw) come first; past 30 s under a loaded make test
    deadline = time.monotonic() + 120
    mine: set[int] = set()
    while time.monotonic() < deadline:
        time.sleep(0.2)
        mine = descendants(grader.pid)
        if any(is_graded_python(p) for p in alive(mine)):
            break
    else:
        pytest.fail("the graded child never started")
    time.sleep(0.5)
    mine = descendants(grader.pid)
    grader.send_signal(signal.SIGKILL)
    grader.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and alive(mine):
        time.sleep(0.1)
    assert not alive(mine), "the child outlived the grader"


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="no setpriv: no parent-death signal")
def test_a_child_whose_grader_died_before_the_signal_was_armed_does_not_run(tmp_path):
    """Between a child's fork and setpriv arming its parent-death signal, a grader that dies
    leaves the child reparented and never signalled (a bulk run killed while starting a warm
    run's holder left its `sleep` running). The command's parent check stops such a child
    before anything of it runs; started by the grader itself, the same command runs."""
    import subprocess

    run = tmp_path / "run"
    (run / "work").mkdir(parents=True)
    marker = tmp_path / "ran"
    box = sandbox.RunSandbox(run, sandbox.SandboxPolicy.create("none"))
    cmd = box.command(Path("/nonexistent"), Path("/nonexistent"), [], [],
                      program=["/bin/sh", "-c", 'echo ran > "$0"', str(marker)])
    # a middleman starts it: its parent is not the process that built the command
    orphan = subprocess.run(["/bin/sh", "-c", '"$@"; exit $?', "middleman", *cmd.argv],
                            env=cmd.env, timeout=60, check=False)
    assert orphan.returncode == 125 and not marker.exists()
    assert subprocess.run(cmd.argv, env=cmd.env, timeout=60, check=False).returncode == 0
    assert marker.read_text() == "ran\n"


def test_hidden_refused_when_goldens_cannot_be_kept_secret(tmp_path, monkeypatch, toy_course):
    """No namespaces and no separate uid: the child could read a grading's expected values
    (and the hidden goldens), so `grade` refuses every graded test, public and hidden (a
    top-level line, each test 0 with the reason: no test is judged on the published inputs);
    with the hidden goldens or the solutions readable to others, a uid alone is not enough
    either (backends.host.HostBox.hidden_refusal)."""
    from autograder.assignments import load
    from autograder.backends import host as boxes
    from autograder.backends.base import RunRequest, TestPlan
    from autograder.grading.store import load_stores

    monkeypatch.setenv(COURSE_ROOT.name, str(toy_course))
    sub = submission(tmp_path, SOLUTION, "s")
    results = grade_results(sub, ["toy"], policy(without=frozenset({"namespaces", "user"})))
    results = results.gradescope()
    assert results["output"].count("graded tests NOT RUN") == 1, results["output"]
    graded = [t for t in results["tests"] if t["max_score"] > 0]
    assert graded and all(t["score"] == 0 and "NOT RUN" in t["output"] for t in graded)
    assert results["score"] == 0
    # the rule itself, for each combination auto can end up with (no process started), on a
    # copy of the course in a folder every user may enter
    shared = Path(tempfile.mkdtemp(prefix="refusal-"))
    try:
        os.chmod(shared, 0o755)
        shutil.copytree(toy_course, shared / "course")
        toy = load("toy", shared / "course")
        goldens = toy.goldens_path("hidden")
        reference = toy.solutions / toy.package
        os.chmod(reference, 0o700)  # as secret as the hidden goldens (below)
        plan = TestPlan.from_stores(load_stores(toy, ("public", "hidden")))

        def refusal(namespaces: bool, user: bool, mode: str = "auto") -> str | None:
            caps = sandbox.Capabilities(namespaces, user, True, False, {})
            request = RunRequest(toy, tmp_path, "replay", plan, sandbox.SandboxPolicy(mode=mode))
            return boxes.HostBox.hidden_refusal(request, caps)

        assert refusal(True, True) is None and refusal(True, False) is None
        assert "no separate uid" in refusal(False, False)
        assert refusal(False, False, mode="none") is None  # isolation off: the user's choice
        os.chmod(goldens, 0o644)
        readable = refusal(False, True)
        assert readable is not None and "unreadable to other users" in readable
        os.chmod(goldens, 0o600)
        assert refusal(False, True) is None
        os.chmod(reference, 0o755)  # the reference readable: refused too (it computes a draw)
        assert "unreadable to other users" in (refusal(False, True) or "")
        os.chmod(reference, 0o700)
        os.chmod(goldens, 0o644)
        os.chmod(goldens.parent, 0o700)
        assert refusal(False, True) is None
    finally:
        shutil.rmtree(shared, ignore_errors=True)
