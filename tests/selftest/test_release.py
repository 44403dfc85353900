"""The student release of the real course: built from git HEAD, no answers in it (by file and
by content), and it works alone (`make check` in the unpacked tarball)."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
from pathlib import Path

import pytest

from autograder import cli
from autograder.assignments import course_root

ROOT = course_root()
pytestmark = pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the course's git checkout")


def _bodies(path: Path, marked_only: bool = False) -> dict[str, str]:
    """Normalized (ast.dump) bodies of the functions in a file, all or only those holding a
    `### BEGIN SOLUTION` marker; a body that is only `raise`/`pass`/docstring is left out."""
    try:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (SyntaxError, UnicodeDecodeError):
        return {}
    lines = text.splitlines()
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            own = lines[node.lineno - 1:node.end_lineno]
            if marked_only and not any(x.strip() == "### BEGIN SOLUTION" for x in own):
                continue
            body = node.body[1:] if ast.get_docstring(node) else node.body
            if len(body) >= 2 or (body and not isinstance(body[0], (ast.Raise, ast.Pass, ast.Expr))):
                out[ast.dump(ast.Module(body=body, type_ignores=[]))] = f"{path}:{node.name}"
    return out


def _reference_bodies() -> dict[str, str]:
    """Bodies of the solutions' marked functions (those the starter leaves to the student) and
    of the test helpers' marked regions: none may appear in the release."""
    found = {}
    for path in sorted((ROOT / "solutions").rglob("*.py")):
        if "### BEGIN SOLUTION" in path.read_text(encoding="utf-8"):
            found.update(_bodies(path, marked_only=True))
    for path in sorted((ROOT / "tests").glob("*/*.py")):
        if "### BEGIN SOLUTION" in path.read_text(encoding="utf-8"):
            found.update(_bodies(path, marked_only=True))
    starter = {}
    for path in sorted((ROOT / "starter").rglob("*.py")):
        starter.update(_bodies(path))
    return {k: v for k, v in found.items() if k not in starter}  # given code stays given


def _score(stdout: str, name: str) -> tuple[float, float]:
    found = re.search(rf"^{name}: ([0-9.]+) / ([0-9.]+)", stdout, re.MULTILINE)
    assert found, stdout
    return float(found[1]), float(found[2])


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("release") / "training-systems"
    assert cli.main(["release", str(dest)]) == 0
    return dest


def test_release_holds_no_solutions_or_hidden_material(release, capsys):
    files = {p.relative_to(release).as_posix() for p in release.rglob("*") if p.is_file()}
    tracked = set(subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                                 check=True).stdout.split())
    assert files - tracked <= {"README.md", "Makefile", "pytest.ini", "tests/dedup/inputs/public_truth.json"}
    assert "tests/minigrad/goldens/public.json" in files and "starter/minigrad/__init__.py" in files
    bad = [f for f in files if f.startswith(("solutions/", "examples/", "bench/", "tests/selftest/"))
           or "hidden" in f or "crosscheck_" in f or "__pycache__" in f
           or ("mutant" in f and not f.startswith("autograder/"))]
    assert not bad
    assert "make demo" not in (release / "README.md").read_text() and \
        "demo:" not in (release / "Makefile").read_text()
    reference = _reference_bodies()
    assert len(reference) > 20
    leaked = [reference[b] for p in release.rglob("*.py") for b in _bodies(p) if b in reference]
    assert not leaked, leaked
    text = {p: p.read_text(errors="replace") for p in release.rglob("*") if p.is_file()
            and p.suffix in (".py", ".json", ".md", ".toml", ".ini", "")}
    assert not [p for p, t in text.items() if "autograder" not in p.relative_to(release).parts
                and any(x.strip() == "### BEGIN SOLUTION" for x in t.splitlines())]
    for answer in ("(word[i], word[i + 1]) == pair", "(1.0 - s**r) ** b", 'normalize("NFKC", text).lower()'):
        assert not [p for p, t in text.items() if answer in t], answer
    assert cli.main(["release", str(release)]) == 2
    assert "already exists" in capsys.readouterr().err


def test_release_works_alone(release):
    """Unpacked from its tarball, with a fresh venv layered (offline) on the course venv's
    packages by a .pth file: `make setup`, `make check` (0 on the starter, full public points
    with the reference), `make check IMPL=missing` (one line), `make test` and bare pytest."""
    (ROOT / "out").mkdir(exist_ok=True)  # not under /tmp: the sandbox gives its child a private /tmp
    tmp_path = Path(tempfile.mkdtemp(prefix="release-selftest-", dir=ROOT / "out"))
    tmp_path.chmod(0o755)  # the sandboxed child runs as another uid and must read the venv
    try:
        _works_alone(release, tmp_path)
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


def _works_alone(release: Path, tmp_path: Path) -> None:
    with tarfile.open(f"{release}.tar.gz") as tar:
        tar.extractall(tmp_path, filter="data")
    bundle = tmp_path / release.name
    base = Path(getattr(sys, "_base_executable", sys.executable))
    subprocess.run([str(base), "-m", "venv", "--without-pip", str(bundle / ".venv")], check=True,
                   timeout=120)
    site = next((bundle / ".venv/lib").glob("python3*/site-packages"))
    (site / "course.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("TRAINING_SYSTEMS_ROOT", "PYTHONPATH")}

    def make(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
        # ISOLATION=none: in the sandbox the child of this .pth-layered venv does not see the
        # course venv's packages yet (a real venv from `make setup` does not need the layer)
        args = (*args, "ISOLATION=none") if args[0] == "check" else args
        return subprocess.run(["make", "-s", *args], cwd=bundle, env=env, capture_output=True,
                              text=True, timeout=timeout)

    done = make("setup", "PIP_FLAGS=--no-deps --no-build-isolation --no-index")
    assert done.returncode == 0, done.stderr
    done = make("check", "A=minigrad")
    # 0 points: `check` exits non-zero (only full public points exit 0)
    assert done.returncode != 0 and "minigrad: 0 /" in done.stdout, done.stdout + done.stderr
    shutil.copytree(ROOT / "solutions" / "minigrad", bundle / "mine" / "minigrad")
    done = make("check", "A=minigrad", "IMPL=mine")
    got, total = _score(done.stdout, "minigrad")
    assert got == total > 0, done.stdout
    done = make("check", "A=minigrad", "IMPL=solutions")
    assert done.returncode != 0 and "Traceback" not in done.stderr and "no folder" in done.stderr
    done = make("test", "A=minigrad", "IMPL=mine")
    assert done.returncode == 0, done.stdout[-2000:]
    done = subprocess.run([str(bundle / ".venv/bin/python"), "-m", "pytest", "-q", "-x",
                           "tests/minigrad/public"], cwd=bundle, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 1 and "error" not in done.stdout.splitlines()[-1], done.stdout[-2000:]
    done = subprocess.run([str(bundle / ".venv/bin/python"), "-m", "pytest", "-q", "--collect-only"],
                          cwd=bundle, env=env, capture_output=True, text=True, timeout=300)
    last = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 0 and "tests collected" in last and "error" not in last, last
    shutil.copytree(ROOT / "solutions" / "dedup", bundle / "mine" / "dedup")
    done = make("check", "A=dedup", "IMPL=mine")
    got, total = _score(done.stdout, "dedup")
    assert got == total > 0, done.stdout  # checks from public_truth.json
