"""The engine's layout (docs/ARCHITECTURE.md): no import cycle between modules or between
packages (imports inside functions count), every import between packages is a row of the
allowed-edges table and every row an import, the committed import graph is the current one,
and each package says in its docstring what may import it.

Mutants that fail these tests: an import of classroom/ from grading/ hidden inside a function
(a package cycle); an import of grading/ from sandbox/ that the table does not list; a new
module or edge without `python docs/import_graph.py`; a package __init__ without its
"May import" / "Imported by" line.
"""

from __future__ import annotations

import importlib.util
import sys
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
