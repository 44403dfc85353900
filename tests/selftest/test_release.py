"""The student release of the real course: built from git HEAD, no answers in it (by file, by
content: no statement of a reference solution, names blinded, in any .py or .md), no instructor
material, an engine of only what `check` and local pytest import, handouts that name only what
ships, and it works alone (`make check`, `make test` and its CLI in the unpacked tarball)."""

from __future__ import annotations

import ast
import builtins
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

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


BUILTINS = frozenset(dir(builtins))
MIN_NODES = 9  # a shorter statement (`x = a + b`) is everyday code, not a reference line
# What only instructors hold (named independently of autograder/audiences.py, which builds the
# release): none of it may be anywhere in the release.
# A module or folder of autograder/ at any depth, by name.
INSTRUCTOR_MODULES = ("classroom", "similarity", "bulk", "dask_executor", "regrade",
                      "class_report", "html_report", "gradebook", "integrations", "gradescope",
                      "nbgrader_course", "nbgrader_preprocessor", "nbgrader_kernel", "nbgrader_lab",
                      "mutation_testing", "mutants", "goldens", "examples", "course_selftest",
                      "tolerance", "release", "release_files", "starter", "crosscheck", "demo")
INSTRUCTOR_NAMES = re.compile(r"(^|/)(EQUIVALENT_MUTANTS\.md|mutation_report\.md|crosscheck_[^/]*"
                              r"|make_plots\.py|make_tables\.py|handout_blocks\.py|Dockerfile[^/]*)$"
                              r"|^(solutions|examples|bench|docker|docs|\.ci)/")


class _Blind(ast.NodeTransformer):
    """Every variable and argument becomes `_`: renaming does not hide a copied line. What a
    line calls or reaches into (np, torch, a helper's name, builtins, attributes) stays: that
    is the line's substance, and blinding it too makes `x = f(a, b)` match everyday code."""

    def visit_Call(self, node):
        node.args = [self.visit(a) for a in node.args]
        node.keywords = [self.visit(k) for k in node.keywords]
        if not isinstance(node.func, ast.Name):
            node.func = self.visit(node.func)
        return node

    def visit_Attribute(self, node):
        if not isinstance(node.value, ast.Name):
            node.value = self.visit(node.value)
        return node

    def visit_Name(self, node):
        return ast.copy_location(ast.Name(node.id if node.id in BUILTINS else "_", node.ctx), node)

    def visit_arg(self, node):
        node.arg = "_"
        return node


def _size(node: ast.AST) -> int:
    return sum(1 for n in ast.walk(node) if not isinstance(n, ast.expr_context))


def _statements(tree: ast.AST) -> dict[str, ast.stmt]:
    """{blinded dump: statement} of every statement at any depth in `tree` (a function body or
    a snippet) that has at least MIN_NODES nodes."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.ClassDef,
                                                                ast.AsyncFunctionDef)):
            if _size(node) >= MIN_NODES:
                out[ast.dump(_Blind().visit(ast.parse(ast.unparse(node))).body[0])] = node
    return out


def _function_statements(path: Path) -> dict[str, str]:
    """{blinded dump: 'file:line'} of the statements inside the functions of a Python file."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return {}
    out = {}
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for dump, node in _statements(ast.Module(body=fn.body, type_ignores=[])).items():
                out.setdefault(dump, f"{path.relative_to(ROOT)}:{node.lineno}")
    return out


def _snippets(text: str) -> list[str]:
    """Python a Markdown text may quote: fenced blocks, inline code spans, and each line."""
    found = re.findall(r"```[a-z]*\n(.*?)```", text, re.DOTALL)
    found += re.findall(r"`([^`\n]+)`", text)
    found += [line.strip() for line in text.splitlines()]
    return found


def _quoted_statements(path: Path) -> set[str]:
    """Blinded dumps of every statement in a release file (.py: the whole module; .md: every
    snippet that parses as Python)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    sources = [text] if path.suffix == ".py" else _snippets(text)
    out = set()
    for source in sources:
        try:
            out |= set(_statements(ast.parse(source)))
        except (SyntaxError, ValueError):
            continue
    return out


def reference_lines() -> dict[str, str]:
    """Every statement of a function body in solutions/ (blinded) that the starter does not
    also give, and that no public test or engine file in the course also writes (shared
    everyday code)."""
    found = {}
    for path in sorted((ROOT / "solutions").rglob("*.py")):
        for dump, where in _function_statements(path).items():
            found.setdefault(dump, where)
    given = set()
    for path in sorted((ROOT / "starter").rglob("*.py")):
        given |= set(_function_statements(path))
    return {d: w for d, w in found.items() if d not in given}


def leaked_lines(release: Path, reference: dict[str, str]) -> list[str]:
    """'release file: reference file:line' for each reference statement found in the release."""
    return [f"{p.relative_to(release)}: {reference[d]}" for p in sorted(release.rglob("*"))
            if ".venv" not in p.relative_to(release).parts
            if p.suffix in (".py", ".md") and p.is_file()
            for d in _quoted_statements(p) if d in reference]


def instructor_files(release: Path) -> list[str]:
    files = [p.relative_to(release).as_posix() for p in release.rglob("*") if p.is_file()]
    return [f for f in files if INSTRUCTOR_NAMES.search(f) or (
        f.startswith("autograder/") and any(part.removesuffix(".py") in INSTRUCTOR_MODULES
                                            for part in PurePosixPath(f).parts[1:]))]


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
    python = str(bundle / ".venv/bin/python")

    def cli_run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([python, "-m", "autograder", *args], cwd=bundle, env=env,
                              capture_output=True, text=True, timeout=300)

    for command in ("grade", "demo", "selftest", "nbgrader", "goldens", "bulk", "release"):
        done = cli_run(command, "x")  # only check and test are offered, and say so in one line
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert "invalid choice" in done.stderr and "(choose from 'check', 'test', 'submit')" in done.stderr
    done = cli_run("check", "minigrad", "--task", "topological", "--isolation", "none")
    assert done.returncode == 1 and "check minigrad task 3" in done.stdout, done.stdout
    assert "Traceback" not in done.stderr and "minigrad: 0 /" in done.stdout, done.stderr
    done = make("check", "A=minigrad")
    # 0 points: the report's score line ends the output, with no make noise after it (the CLI
    # exits 1, `make check` 0 once the report is printed)
    assert done.returncode == 0 and "minigrad: 0 /" in done.stdout.strip().splitlines()[-1], done.stdout
    assert "Error" not in done.stderr, done.stderr
    shutil.copytree(ROOT / "solutions" / "minigrad", bundle / "mine" / "minigrad")
    done = make("check", "A=minigrad", "IMPL=mine")
    got, total = _score(done.stdout, "minigrad")
    assert got == total > 0, done.stdout
    done = make("check", "A=minigrad", "IMPL=solutions")
    assert done.returncode != 0 and "Traceback" not in done.stderr and "no such folder" in done.stderr
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


# Reference lines the course gives on purpose, each with where and why (reviewed by hand).
GIVEN = {
    "tests/dedup/common.py: solutions/dedup/text.py:31":
        "word_shingles in dedup's case generator (the near-copy maker runs in the child) is "
        "shingles()'s last line; owner of tests/dedup: move it out of common.py or accept it",
}
COURSE_PATH = re.compile(r"`((?:assignments|tests|starter|autograder|solutions|bench|examples|docker"
                         r"|docs)/[\w./-]*\.\w+)`(?! \(instructor-only)")
MAKE_TARGET = re.compile(r"`make ([\w-]+)[^`]*`(?! \(instructor-only)")


def test_release_holds_no_reference_line_and_no_instructor_file(release):
    reference = reference_lines()
    assert len(reference) > 400
    leaked = [x for x in leaked_lines(release, reference) if x not in GIVEN]
    assert not leaked, leaked
    assert not instructor_files(release)


def test_release_handouts_name_only_what_ships(release):
    targets = set(re.findall(r"^([\w-]+):", (release / "Makefile").read_text(), re.MULTILINE))
    assert {"setup", "check", "test"} <= targets
    for md in sorted(release.rglob("*.md")):
        text = md.read_text(encoding="utf-8")
        missing = [p for p in COURSE_PATH.findall(text) if not (release / p).exists()]
        assert not missing, f"{md.relative_to(release)} names {missing}"
        unknown = [t for t in MAKE_TARGET.findall(text) if t not in targets]
        assert not unknown, f"{md.relative_to(release)}: make {unknown}"
    readme = (release / "README.md").read_text(encoding="utf-8")
    assert all(f"`{a}`" in readme for a in ("minigrad", "ad_modes", "bpe", "dedup", "scaling",
                                            "ddp", "repro", "fusion"))
    assert "download.pytorch.org/whl/cpu" in (release / "Makefile").read_text()


@pytest.mark.parametrize("plant", ["EQUIVALENT_MUTANTS.md", "similarity.py", "quote.md"])
def test_the_release_checks_catch_a_planted_leak(release, tmp_path, plant):
    """The checks above can fail: a mutant write-up, the instructor's similarity module (whose
    union-find is dedup's Task 4 helper), or a renamed quote of a reference line in a handout."""
    bad = tmp_path / "bad"
    shutil.copytree(release, bad, ignore=shutil.ignore_patterns(".venv"))
    if plant == "EQUIVALENT_MUTANTS.md":
        shutil.copy(ROOT / "tests/ddp/EQUIVALENT_MUTANTS.md", bad / "tests/ddp" / plant)
        assert instructor_files(bad) == [f"tests/ddp/{plant}"]
    elif plant == "similarity.py":
        shutil.copy(ROOT / "autograder/classroom/similarity.py", bad / "autograder" / plant)
        assert instructor_files(bad) == [f"autograder/{plant}"]
    source = (ROOT / "solutions/ddp/sampler.py").read_text(encoding="utf-8")
    line = next(x.strip() for x in source.splitlines() if "self.total_size - len(" in x)
    renamed = line.replace("padding", "pad_count").replace("indices", "idx")
    (bad / "assignments" / "quote.md").write_text(f"Hint: `{renamed}`\n", encoding="utf-8")
    assert any("quote.md: solutions/ddp/sampler.py" in x
               for x in leaked_lines(bad, reference_lines()))
