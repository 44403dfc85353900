"""The Gradescope autograder zip on the toy course: nothing that gives answers away inside, and
run_autograder, run against a local folder laid out like Gradescope's /autograder, writes a
schema-valid results.json whose scores equal pipeline.grade's on the same submission."""

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

import jsonschema
import pytest
from helpers import grade_results

from autograder import cli
from autograder.assignments import discover
from autograder.grading.report import SCHEMA_PATH
from autograder.integrations.gradescope import requirements, zip_contents
from autograder.markers import BEGIN, END, without_markers
from autograder.sandbox import SandboxPolicy, report_lines, uids

TOY = Path(__file__).parent / "toy_course"
SOLUTION = (TOY / "solutions" / "toy" / "__init__.py").read_text()
STARTER = (TOY / "starter" / "toy" / "__init__.py").read_text()


def solution_bodies(text: str) -> list[str]:
    """The reference code between each BEGIN/END SOLUTION marker pair, marker lines left out."""
    pattern = rf"^[ \t]*{re.escape(BEGIN)}\n(.*?)^[ \t]*{re.escape(END)}$"
    return [m.group(1) for m in re.finditer(pattern, text, re.S | re.M)]


@pytest.fixture
def built(toy_course, tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(toy_course))
    out = tmp_path / "autograder.zip"
    assert cli.main(["gradescope", "toy", "--out", str(out)]) == 0
    return out


def test_zip_has_engine_tests_goldens_and_no_answers(built):
    with zipfile.ZipFile(built) as zf:
        names = zf.namelist()
        texts = {n: zf.read(n).decode("utf-8", "replace") for n in names}
        modes = {n: zf.getinfo(n).external_attr >> 16 for n in names}
    assert {"setup.sh", "run_autograder", "requirements.txt", "autograder/grading/pipeline.py",
            "tests/toy/goldens/public.json", "tests/toy/goldens/hidden.json",
            "tests/toy/hidden/test_more.py", "tests/toy/checks.py",
            "solutions/toy/__init__.py"} <= set(names)
    # the reference package (each grading's expected values are computed from it), and no
    # other solution file
    assert not [n for n in names if (n.startswith("solutions/") and not
                                     n.startswith("solutions/toy/"))
                or ("MUTANTS" in n.upper() and not n.startswith("autograder/"))
                or (n.endswith(".toml") and n != "tests/toy/assignment.toml")]
    bodies = solution_bodies(SOLUTION)
    assert len(bodies) == 3 and "return sum(xs) / len(xs)" in bodies[1]
    leaks = [(n, b) for n, t in texts.items() for b in bodies if b in t
             and not n.startswith("solutions/toy/")]
    assert leaks == [], f"reference code outside the reference package: {leaks}"
    # the mutants' code: none (the goldens keep each mutant's name, hint and recorded values:
    # the trusted parent's misconception feedback)
    edits = [e["new"] for m in tomllib.loads((TOY / "solutions/mutants/toy.toml").read_text())
             ["mutants"] for e in m["edits"]]
    assert len(edits) == 2 and not [e for e in edits for t in texts.values() if e in t]
    assert modes["run_autograder"] & 0o111 and modes["setup.sh"] & 0o111
    # the shell scripts: they parse, stop at the first error, and install the exact pins
    for script in ("setup.sh", "run_autograder"):
        assert texts[script].startswith("#!/usr/bin/env bash\n")
        assert "set -euo pipefail" in texts[script]
        bash = subprocess.run(["bash", "-n"], input=texts[script], text=True,
                              capture_output=True, timeout=30)
        assert bash.returncode == 0, bash.stderr
    if shutil.which("shellcheck"):  # Debian's shellcheck, where installed
        with tempfile.TemporaryDirectory() as tmp:
            for script in ("setup.sh", "run_autograder"):
                Path(tmp, script).write_text(texts[script])
            check = subprocess.run(["shellcheck", "setup.sh", "run_autograder"], cwd=tmp,
                                   capture_output=True, text=True, timeout=60)
            assert check.returncode == 0, check.stdout
    assert "bubblewrap" in texts["setup.sh"] and "python3.11 -m venv" in texts["setup.sh"]
    assert '-r "$ROOT/source/requirements.txt"' in texts["setup.sh"]
    # the goldens: root's alone, once at image build (and again by every run_autograder)
    assert 'chown -R root:root "$ROOT/source"' in texts["setup.sh"]
    assert 'chmod -R go-rwx "$ROOT/source"' in texts["setup.sh"]
    assert texts["requirements.txt"] == requirements()
    assert "torch==2.13.0\n" in texts["requirements.txt"]
    assert all("==" in line for line in texts["requirements.txt"].splitlines())


def test_each_zip_holds_its_own_reference_and_no_other_course_code():
    """Every assignment of the real course (contents only, nothing graded): its own reference
    package whole (each grading's expected values are computed from it), no other assignment's
    solution body, no mutant or instructor script; what reaches the sandboxed child is the run
    folder's stubbed copy (tests/selftest/test_draws.py, backends/run_folder.py)."""
    found = discover()
    assert len(found) >= 8
    for a in found:
        files = {n: d.decode("utf-8", "replace") for n, d in zip_contents(a).items()}
        assert f"tests/{a.name}/goldens/hidden.json" in files
        assert f"solutions/{a.package}/__init__.py" in files
        assert not [n for n in files if (n.startswith("solutions/") and not n.startswith(
            f"solutions/{a.package}/")) or "crosscheck_" in n or "mutants" in n]
        others = [b for o in found if o.name != a.name
                  for p in sorted((o.solutions / o.package).rglob("*.py"))
                  for b in solution_bodies(p.read_text()) if len(b) > 80]
        leaks = [(n, b[:40]) for n, t in files.items() for b in others if b in t]
        assert leaks == [], f"{a.name}: another assignment's reference inside its zip: {leaks}"


def run_autograder(zip_path: Path, root: Path, submission: str | None) -> dict:
    """Unpack the zip into root/source, put the toy package with `submission` as its
    __init__.py into root/submission (none: nothing submitted), run run_autograder with this
    venv's python (and this process's PATH) and return results.json."""
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(root / "source")
    (root / "submission").mkdir(parents=True)
    if submission is not None:
        (root / "submission" / "toy").mkdir()
        (root / "submission" / "toy" / "__init__.py").write_text(submission)
    (root / "results").mkdir()
    env = {k: v for k, v in os.environ.items() if k != "TRAINING_SYSTEMS_ROOT"}
    env |= {"AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable}
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, cwd="/",
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"engine: {root / 'source' / 'autograder'}\n" in done.stdout  # the zip's engine ran
    results = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(results, json.loads(SCHEMA_PATH.read_text()))
    return results


def scores(results: dict) -> dict[str, float]:
    return {t["name"]: t["score"] for t in results["tests"]}


@pytest.mark.parametrize("who", ["reference", "starter"])
def test_run_autograder_in_a_gradescope_layout_equals_service_grade(built, tmp_path, request,
                                                                    who):
    source = without_markers(SOLUTION) if who == "reference" else STARTER
    disable = who == "starter"  # a layer Gradescope's container lacks: no bubblewrap on PATH
    if disable:
        request.getfixturevalue("without_bubblewrap")
    got = run_autograder(built, tmp_path / "autograder", source)
    sub = tmp_path / "direct"
    (sub / "toy").mkdir(parents=True)
    (sub / "toy" / "__init__.py").write_text(source)
    policy = SandboxPolicy.create("auto")
    want = grade_results(sub, ["toy"], policy).gradescope()
    assert got["max_score"] == want["max_score"] == 7
    assert got["score"] == want["score"] == (7 if who == "reference" else 0)
    assert scores(got) == scores(want) and len(scores(got)) >= 3
    warnings = report_lines(policy)
    if disable:
        assert warnings and "missing layer 'namespaces'" in warnings[0]
    assert all(line in got["output"] for line in warnings)  # loud, as --isolation auto is


def test_nothing_submitted_is_a_zero_with_the_max_score(built, tmp_path):
    got = run_autograder(built, tmp_path / "autograder", None)
    assert got["score"] == 0 and got["max_score"] == 7
    assert "toy" in got["output"] and all(t["score"] == 0 for t in got["tests"])


def test_missing_goldens_is_one_line(toy_course, tmp_path, monkeypatch, capsys):
    course = tmp_path / "course"
    shutil.copytree(toy_course, course)
    shutil.rmtree(course / "tests" / "toy" / "goldens")
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(course))
    assert cli.main(["gradescope", "toy", "--out", str(tmp_path / "a.zip")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: toy: no public goldens") and err.count("\n") == 1
    assert not (tmp_path / "a.zip").exists()


# ------------------------------------------- Gradescope without user namespaces (a container)

CORPUS_DIR = Path(__file__).parent / "adversarial"
CONTAINER_PYTHON = "/opt/runner/venv/bin/python3"
GRADER_EXTRAS = ("rich", "markdown_it", "mdurl", "pygments")
# Rootful podman without a user namespace: the container's uids are the host's, and a grader of
# another test worker kills its slot uid by kill(-1), which reaches the container's processes.
# The container's own PID namespace picks a range apart from the host's but for 1/4096 (uids.
# slot_uid_base); the variable makes it certain: a range below every namespace's.
CONTAINER_SLOT_BASE = uids.UID_RANGES_BASE - uids.SLOT_SPAN
POST_CHECK = """
import json, os
slot = __SLOT_BASE__
procs = []
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        if os.stat(f"/proc/{pid}").st_uid >= slot:
            procs.append(open(f"/proc/{pid}/cmdline", "rb").read().decode("utf-8", "replace"))
    except OSError:
        pass
files = [os.path.join(d, n) for d in ("/tmp", "/var/tmp", "/dev/shm") for n in os.listdir(d)
         if os.lstat(os.path.join(d, n)).st_uid >= slot]
print("POST" + json.dumps({"procs": procs, "files": files}))
""".replace("__SLOT_BASE__", str(CONTAINER_SLOT_BASE))


def gradescope_container(engine, zip_path: Path, root: Path, fill, user: str = "0") -> dict:
    """Lay out `root` as Gradescope's /autograder (source from the zip, submission made by
    `fill(root / "submission")`, results/), run run_autograder in the runner image (no
    bubblewrap there) as `user`, wait for late daemons, and return {"results", "post",
    "log"}: post lists slot-uid processes and files in /tmp, /var/tmp, /dev/shm left after."""
    import hashlib

    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(root / "source")
    (root / "submission").mkdir()
    fill(root / "submission")
    (root / "results").mkdir()
    # the runner image has the child's packages only; the grader's pure-Python extras (rich and
    # what it imports) come from this venv, through a wrapper named by AUTOGRADER_PYTHON
    libs = root / "grader-libs"
    for name in GRADER_EXTRAS:
        module = importlib.import_module(name)
        shutil.copytree(Path(module.__file__).parent, libs / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    (root / "python").write_text(f"#!/bin/sh\nPYTHONPATH=/autograder/grader-libs:$PYTHONPATH "
                                 f"exec {CONTAINER_PYTHON} \"$@\"\n")
    (root / "python").chmod(0o755)
    if user != "0":
        subprocess.run(["chown", "-R", f"{user}:{user}", str(root)], check=True)

    def digest() -> str:
        h = hashlib.sha256()
        for p in sorted((root / "source").rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                h.update(str(p).encode() + p.read_bytes())
        return h.hexdigest()

    before = digest()
    script = (f"bash /autograder/source/run_autograder > /autograder/log.txt 2>&1; "
              f"echo rc=$? >> /autograder/log.txt; sleep 2; {CONTAINER_PYTHON} -c '{POST_CHECK}'")
    argv = [*engine["podman"].argv, "run", "--rm", "--user", user, "--network", "none",
            "--security-opt", "label=disable", "-v", f"{root}:/autograder",
            "-e", "AUTOGRADER_PYTHON=/autograder/python",
            "-e", f"AUTOGRADER_SANDBOX_UID_BASE={CONTAINER_SLOT_BASE}", "--entrypoint", "bash",
            engine["tag"], "-c", script]
    done = subprocess.run(argv, env=engine["podman"].env, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)
    log = (root / "log.txt").read_text(errors="replace") if (root / "log.txt").exists() else ""
    assert done.returncode == 0 and "rc=0" in log, done.stderr[-2000:] + log[-3000:]
    post = json.loads(done.stdout.split("POST", 1)[1])
    results = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(results, json.loads(SCHEMA_PATH.read_text()))
    assert digest() == before, "the autograder's own files changed during the run"
    return {"results": results, "post": post, "log": log}


def toy_package(source: str):
    def fill(submission: Path) -> None:
        (submission / "toy").mkdir()
        (submission / "toy" / "__init__.py").write_text(source)
    return fill


PLANTED = ("autograder", "rich", "numpy", "pytest", "jsonschema", "markdown_it")


def hostile_files(source: str):
    """The toy package with `source`, and around it: packages named after the engine and the
    grader's libraries (at the top and in the package; imported, each would write a marker and
    kill the process), symbolic links to the autograder's own files, names with bytes that are
    not UTF-8, a FIFO named like a module, a 60 MB sparse file."""
    def fill(submission: Path) -> None:
        toy_package(source)(submission)
        plant = ("open('/autograder/results/planted-{0}', 'w').close()\n"
                 "import os\nos._exit(3)\n")
        for name in PLANTED:
            for where in (submission, submission / "toy"):
                (where / name).mkdir()
                (where / name / "__init__.py").write_text(plant.format(name))
        os.symlink("/autograder/source/tests/toy/goldens/hidden.json",
                   submission / "toy" / "leak.py")
        os.symlink("/autograder/source/tests", submission / "tests")
        odd = os.fsdecode(b"odd-\xff\xfe")
        (submission / f"{odd}.py").write_text("x = 1\n")
        (submission / odd).mkdir()
        os.mkfifo(submission / "toy" / "notes.py")
        with open(submission / "huge.bin", "wb") as f:
            f.truncate(60 * 2**20)
    return fill


def seen_in(results: dict) -> dict:
    message = next(t["output"] for t in results["tests"] if t["name"].endswith("test_add")
                   or "test_add" in t["name"])
    return json.loads(message.split("SEEN")[1])


def hidden_tests(results: dict) -> list[dict]:
    return [t for t in results["tests"] if t.get("visibility") != "visible"]


def test_gradescope_as_root_without_bwrap_keeps_goldens_unreadable(built, tmp_path, engine):
    """Gradescope's layout in a container without bubblewrap, grader as root: the child runs as
    a slot uid; hidden tests are graded, and every attack fails: gradescope_runtime.py's (the
    goldens, results.json, the engine, the venv, killing, a late daemon, leftovers) and the
    submission's files (hostile_files: shadowing packages, links, odd names, FIFO, size)."""
    source = (CORPUS_DIR / "gradescope_runtime.py").read_text()
    got = gradescope_container(engine, built, tmp_path / "autograder", hostile_files(source))
    results, post = got["results"], got["post"]
    assert [t["name"].rsplit(" ", 1)[-1] for t in results["tests"]] == [
        "test_order", "test_add", "test_mean_of_nothing", "test_mean"]  # graded, not hijacked
    assert not list((tmp_path / "autograder" / "results").glob("planted-*"))
    assert "missing layer 'namespaces'" in results["output"]
    assert "NOT RUN" not in results["output"], results["output"]
    seen = seen_in(results)
    assert CONTAINER_SLOT_BASE <= seen["uid"] < uids.UID_RANGES_BASE, seen  # the range given
    assert seen["read_goldens"] == "PermissionError", seen
    assert seen["list_source"] == "PermissionError", seen
    assert seen["write_results"] == "PermissionError", seen
    assert seen["write_engine"] == "PermissionError", seen
    assert seen["plant_venv_pth"] in ("PermissionError", "OSError"), seen
    assert seen["killed_others"] == 0, seen
    assert results["score"] == 0 and "forged" not in json.dumps(results)
    hidden = hidden_tests(results)
    assert hidden and all(t["score"] == 0 for t in hidden)
    assert all("NotImplementedError" in t["output"] for t in hidden), hidden  # graded: no forgery
    assert not (tmp_path / "autograder" / "results" / "forged.json").exists()
    assert post == {"procs": [], "files": []}, post  # no daemon, no leftover in shared places


def test_gradescope_grader_without_root_or_bwrap_refuses_graded_tests(built, tmp_path, engine):
    """The grader cannot drop to another uid (not root) and has no bubblewrap: the child could
    read the draw's expected values (and the goldens), so every graded test, public and hidden,
    is refused, said so at the top and in each test; none is judged on the published inputs
    (the reference scores 0)."""
    got = gradescope_container(engine, built, tmp_path / "autograder",
                               toy_package(without_markers(SOLUTION)), user="10001")
    results = got["results"]
    assert results["output"].count("graded tests NOT RUN") == 1, results["output"]
    assert "no separate uid" in results["output"]
    graded = [t for t in results["tests"] if t["max_score"] > 0]
    assert graded and all(t["score"] == 0 and "NOT RUN" in t["output"] for t in graded)
    assert results["score"] == 0


def test_gradescope_without_bwrap_no_channel_between_children(built, tmp_path, engine):
    """channel_all.py under run_autograder without bubblewrap (the fallback layers: children
    one after the other, kill-by-uid and the slot's leftovers removed after each): the public
    child's own markers are seen, the hidden child's are not, on each of the 9 channels."""
    cross, own = 39001, 39002  # the container has its own network namespace
    source = ((CORPUS_DIR / "channel_all.py").read_text()
              .replace("__PORT_CROSS__", str(cross)).replace("__PORT_SELF__", str(own)))
    got = gradescope_container(engine, built, tmp_path / "autograder", toy_package(source))
    seen = seen_in(got["results"])
    assert all(seen["control"].values()), seen  # every detector works here
    assert not any(seen["crossed"].values()), seen
    assert got["post"] == {"procs": [], "files": []}, got["post"]

def _unpacked(zip_path: Path, root: Path) -> Path:
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(root / "source")
    (root / "submission" / "toy").mkdir(parents=True)
    (root / "submission" / "toy" / "__init__.py").write_text(SOLUTION)
    return root


def _bare_env(path: str) -> dict[str, str]:
    drop = ("TRAINING_SYSTEMS_ROOT", "AUTOGRADER_PYTHON", "VIRTUAL_ENV", "PYTHONPATH")
    return {**{k: v for k, v in os.environ.items() if k not in drop}, "PATH": path}


def test_readme_local_run_finds_the_activated_venv(built, tmp_path):
    """`AUTOGRADER_ROOT=DIR bash DIR/source/run_autograder` from a clean folder, with the course
    venv active (its bin/ first on PATH) and no AUTOGRADER_PYTHON and no DIR/venv: it grades
    (not rc 127, "DIR/venv/bin/python: No such file or directory")."""
    root = _unpacked(built, tmp_path / "autograder")
    env = _bare_env(f"{Path(sys.executable).parent}:/usr/bin:/bin") | {"AUTOGRADER_ROOT": str(root)}
    done = subprocess.run(["bash", "source/run_autograder"], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 7 and f"engine: {root / 'source' / 'autograder'}" in done.stdout


def test_local_run_without_a_usable_python_says_what_to_do(built, tmp_path):
    """No venv, no AUTOGRADER_PYTHON, and only a python3 that lacks torch on PATH: exit 1, one
    line on stderr, and a schema-valid results.json with a zero and the same reason."""
    root = _unpacked(built, tmp_path / "autograder")
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python3").write_text("#!/bin/sh\nexit 1\n")
    (fake / "python3").chmod(0o755)
    (fake / "mkdir").symlink_to(shutil.which("mkdir"))
    env = _bare_env(str(fake)) | {"AUTOGRADER_ROOT": str(root)}
    done = subprocess.run([shutil.which("bash"), "source/run_autograder"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "AUTOGRADER_PYTHON" in done.stderr, done.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    jsonschema.validate(results, json.loads(SCHEMA_PATH.read_text()))
    assert results["score"] == 0 and "setup.sh" in results["output"]
