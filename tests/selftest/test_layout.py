"""The engine's layout (docs/ARCHITECTURE.md): no import cycle between modules or between
packages (imports inside functions count), every import between packages is a row of the
allowed-edges table and every row an import, the committed import graph is the current one,
each package says in its docstring what may import it, and no engine file passes 400 lines.

Every module a docstring or comment of the engine names exists: `autograder.x.y`, a file
`x/y.py` or `y.py` (looked up in the engine, then from the repository root, so tests/...,
docs/..., bench/... resolve), and `module.name` (a module of the engine holding that name, or,
when the first word is no name of the engine, a module Python can import).

Mutants that fail these tests: an import of classroom/ from grading/ hidden inside a function
(a package cycle); an import of grading/ from sandbox/ that the table does not list; a new
module or edge without `python docs/import_graph.py`; a package __init__ without its
"May import" / "Imported by" line; a docstring naming `bulk_intake.visible` after the module
became `submissions`; an engine file past 400 lines.
"""

from __future__ import annotations

import ast
import importlib.util
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _graph_tool():
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "docs" / "import_graph.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("import_graph", module)
    spec.loader.exec_module(module)
    return module


def test_no_import_cycle_between_modules_or_packages():
    tool = _graph_tool()
    modules = tool.module_graph()
    assert "autograder.grading.judge" in modules and modules["autograder.grading.judge"]
    assert tool.cycles(modules) == []
    assert tool.cycles(tool.package_graph(modules)) == []


def test_a_cycle_hidden_in_a_function_is_found(tmp_path):
    engine = tmp_path / "autograder"
    for pkg in ("grading", "classroom"):
        (engine / pkg).mkdir(parents=True)
        (engine / pkg / "__init__.py").write_text("")
    (engine / "__init__.py").write_text("")
    (engine / "grading" / "service.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..classroom import bulk\n")
    (engine / "classroom" / "bulk.py").write_text("from ..grading import service\n")
    tool = _graph_tool()
    assert tool.cycles(tool.package_graph(tool.module_graph(engine))) == []  # type hints only
    (engine / "grading" / "service.py").write_text(
        "def grade():\n    from ..classroom.bulk import run\n")
    modules = tool.module_graph(engine)
    assert tool.cycles(modules) == [["autograder.classroom.bulk", "autograder.grading.service"]]
    assert tool.cycles(tool.package_graph(modules)) == [["classroom", "grading"]]


def test_every_import_between_packages_is_in_the_allowed_edges_table():
    tool = _graph_tool()
    graph = tool.edges(tool.module_graph())
    allowed = tool.allowed_edges(tool.DOC.read_text(encoding="utf-8"))
    assert set(allowed) == set(graph), "the allowed-edges table has one row per package"
    assert tool.unlisted_edges(graph, allowed) == [], \
        "an import between packages that docs/ARCHITECTURE.md's allowed-edges table lacks"
    assert tool.unlisted_edges(allowed, graph) == [], \
        "a row of the allowed-edges table lists an import the code no longer makes"


def test_an_edge_the_table_lacks_is_reported(tmp_path):
    engine = tmp_path / "autograder"
    for pkg in ("grading", "sandbox"):
        (engine / pkg).mkdir(parents=True)
        (engine / pkg / "__init__.py").write_text("")
    (engine / "__init__.py").write_text("")
    (engine / "cli.py").write_text("from .grading import service\n")
    (engine / "grading" / "service.py").write_text("from ..sandbox import run\n")
    (engine / "sandbox" / "run.py").write_text("import os\n")
    tool = _graph_tool()
    allowed = tool.allowed_edges(
        "| package | may import |\n|---|---|\n| `(top)` | `grading` |\n"
        "| `grading` | `sandbox` |\n| `sandbox` | — |\n")
    assert allowed == {"(top)": {"grading"}, "grading": {"sandbox"}, "sandbox": set()}
    assert tool.unlisted_edges(tool.edges(tool.module_graph(engine)), allowed) == []
    (engine / "sandbox" / "run.py").write_text(
        "def child():\n    from ..grading.service import grade\n    from .. import cli\n")
    graph = tool.edges(tool.module_graph(engine))
    assert tool.unlisted_edges(graph, allowed) == ["sandbox -> (top)", "sandbox -> grading"]


MAX_LINES = 400


def test_every_engine_file_fits_in_400_lines():
    """A module past MAX_LINES holds more than one idea: split it along its seam (as cli.py's
    parser and commands.py's handlers, or judge.py's per-test judging and pipeline.py's order
    of runs), each part with a docstring that states its contract."""
    long = {str(p.relative_to(ROOT)): n for p in sorted((ROOT / "autograder").rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}, f"engine files over {MAX_LINES} lines: {long}"


def test_the_committed_import_graph_is_current():
    tool = _graph_tool()
    doc = tool.DOC.read_text(encoding="utf-8")
    assert tool.BEGIN in doc, "docs/ARCHITECTURE.md has no import-graph section"
    assert tool.with_section(doc, tool.render()) == doc, \
        "docs/ARCHITECTURE.md's import graph is stale: run `python docs/import_graph.py`"


def test_each_package_says_who_may_import_it():
    for init in sorted((ROOT / "autograder").glob("*/__init__.py")):
        if init.parent.name == "harness":  # runs in the sandbox; imports nothing of the engine
            text = " ".join(init.read_text(encoding="utf-8").split())
            assert "imports nothing" in text or "nothing here imports" in text, init
            continue
        text = " ".join(init.read_text(encoding="utf-8").split())
        assert "May import" in text and ("Imported by" in text or "imported by" in text), \
            f"{init.relative_to(ROOT)}: its docstring must say what may import it"


ENGINE = ROOT / "autograder"
DOTTED = re.compile(r"(?<![\w.])autograder(?:\.\w+)+")
FILENAME = re.compile(r"(?<![\w./\\<>*{}-])[\w./<>*{}-]*\w\.py\b")
MODULE_ATTR = re.compile(r"(?<![\w./\\])([a-z_][a-z0-9_]*)\.([A-Za-z_]\w*)")
EXTENSIONS = {"py", "json", "jsonl", "toml", "md", "txt", "csv", "zip", "sh", "conf", "html",
              "yml", "yaml", "ipynb", "pt", "npz", "npy", "log", "tar", "gz", "cfg", "ini"}


def _prose(path: Path) -> list[str]:
    """The docstrings and comments of one file."""
    source = path.read_text(encoding="utf-8")
    texts = [doc for node in ast.walk(ast.parse(source))
             if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
             and (doc := ast.get_docstring(node, clean=False))]
    texts += [tok.string for tok in tokenize.generate_tokens(io.StringIO(source).readline)
              if tok.type == tokenize.COMMENT]
    return texts


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _names(trees) -> tuple[set[str], set[str], set[str]]:
    """Every identifier of the engine, every attribute it reads, every string literal."""
    idents, attrs, strings = set(), set(), set()
    for tree in trees:
        for node in ast.walk(tree):
            for field in ("id", "arg", "name", "attr", "asname"):
                if isinstance(value := getattr(node, field, None), str):
                    idents.add(value.split(".")[0])
            if isinstance(node, ast.Attribute):
                attrs.add(node.attr)
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                strings.add(node.value)
    return idents, attrs, strings


def stale_mentions(engine: Path = ENGINE, root: Path = ROOT) -> list[str]:
    """`path: mention` for each module or file named in the engine's prose that does not exist."""
    files = {p for p in engine.rglob("*.py") if "__pycache__" not in p.parts}
    sources = {p: p.read_text(encoding="utf-8") for p in files}
    modules: dict[str, list[Path]] = {}
    for p in files:
        modules.setdefault(p.parent.name if p.name == "__init__.py" else p.stem, []).append(p)
    idents, attrs, strings = _names(ast.parse(text) for text in sources.values())
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                            cwd=root, capture_output=True, text=True).stdout.split()
    repo = {"/" + f for f in listed} | {"/" + str(p.relative_to(root)) for p in files}

    def module_exists(dotted: str) -> bool:
        parts = dotted.split(".")
        path = engine.parent
        for i, part in enumerate(parts):
            if (path / part).is_dir():
                path = path / part
            elif (path / f"{part}.py").is_file():
                return i == len(parts) - 1 or re.search(
                    rf"\b{parts[i + 1]}\b", sources[path / f"{part}.py"]) is not None
            else:  # a name the package's __init__ defines or re-exports
                return re.search(rf"\b{part}\b", sources.get(path / "__init__.py", "")) is not None
        return True

    def file_exists(name: str, where: Path) -> bool:
        if any(c in name for c in "<>*{}"):  # a pattern, not a file
            return True
        if ((root / name).is_file() or (engine / name).is_file() or (where / name).is_file()
                or any(f.endswith("/" + name) for f in repo)
                or any(s.endswith(Path(name).name) for s in strings)):  # a file the engine writes
            return True
        return "/" not in name and _importable(Path(name).stem)

    def attr_exists(module: str, name: str) -> bool:
        if name in EXTENSIONS or name in attrs:  # a file name, or a variable's attribute
            return True
        if module in modules:
            return any(re.search(rf"\b{name}\b", sources[p]) or (p.name == "__init__.py" and (
                (p.parent / name).is_dir() or (p.parent / f"{name}.py").is_file()))
                for p in modules[module])
        return module in idents or _importable(module)

    stale = []
    for path in sorted(files):
        where = f"{path.relative_to(root)}"
        for text in _prose(path):
            stale += [f"{where}: {m}" for m in DOTTED.findall(text)
                      if m.rpartition(".")[2] not in EXTENSIONS and not module_exists(m)]
            stale += [f"{where}: {m}" for m in FILENAME.findall(text)
                      if not file_exists(m, path.parent)]
            stale += [f"{where}: {a}.{b}" for a, b in MODULE_ATTR.findall(text)
                      if a != "autograder" and not attr_exists(a, b)]
    return sorted(set(stale))


def test_the_engine_names_only_modules_that_exist():
    assert stale_mentions() == []


def test_a_renamed_module_named_in_a_docstring_is_found(tmp_path):
    engine = tmp_path / "autograder"
    (engine / "classroom").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text("")
    (engine / "__init__.py").write_text("")
    (engine / "classroom" / "__init__.py").write_text('"""`submissions.visible`"""\n')
    (engine / "classroom" / "submissions.py").write_text("def visible(): ...\n")
    (engine / "classroom" / "gradebook.py").write_text(
        '"""Names escaped by submissions.visible (classroom/submissions.py,\n'
        'autograder.classroom.submissions, tests/conftest.py)."""\n')
    assert stale_mentions(engine, tmp_path) == []
    (engine / "classroom" / "gradebook.py").write_text(
        '"""Names escaped by bulk_intake.visible (classroom/bulk_intake.py,\n'
        'autograder.classroom.bulk_intake, submissions.hidden)."""  # see bulk_job.py\n')
    assert stale_mentions(engine, tmp_path) == [
        "autograder/classroom/gradebook.py: autograder.classroom.bulk_intake",
        "autograder/classroom/gradebook.py: bulk_intake.visible",
        "autograder/classroom/gradebook.py: bulk_job.py",
        "autograder/classroom/gradebook.py: classroom/bulk_intake.py",
        "autograder/classroom/gradebook.py: submissions.hidden"]
