"""The engine reads the environment only through autograder/settings.py, the documented table of
deployment variables: no other module touches `os.environ`/`os.getenv` (the harness, which
runs in the sandboxed child on the environment the grader wrote for it, and the zygote, which
writes its fork's, are the exceptions), every variable of the table is used, and README.md and
docs/ARCHITECTURE.md show the table as settings.py declares it.

Mutants that fail these tests: `os.environ.get("AUTOGRADER_DOCKER_IMAGE")` back in
backends/docker.py; a variable added to settings.py without its row in the docs; a declared
variable nothing reads."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from autograder import settings

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "autograder"
# not the engine's environment: the child's (harness/), the zygote's fork's (it writes it)
EXEMPT = ("settings.py", "harness/", "backends/zygote.py")
READS = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


def environment_reads(engine: Path) -> list[str]:
    """`file:line` of every use of os's environment functions outside EXEMPT."""
    found = []
    for path in sorted(engine.rglob("*.py")):
        rel = path.relative_to(engine).as_posix()
        if rel.startswith(EXEMPT):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in READS:
                found.append(f"{rel}:{node.lineno}")
            elif isinstance(node, ast.ImportFrom) and node.module == "os" and any(
                    alias.name in READS for alias in node.names):
                found.append(f"{rel}:{node.lineno}")
    return found


def test_the_engine_reads_the_environment_only_through_settings():
    assert environment_reads(ENGINE) == []


def test_a_read_outside_settings_is_found(tmp_path):
    engine = tmp_path / "autograder"
    (engine / "backends").mkdir(parents=True)
    (engine / "harness").mkdir()
    (engine / "harness" / "boot.py").write_text("import os\nos.environ.get('X')\n")
    (engine / "settings.py").write_text("import os\nos.environ.get('X')\n")
    (engine / "backends" / "docker.py").write_text("import os\n\n\ndef image():\n"
                                                   "    return os.environ.get('IMAGE')\n")
    (engine / "backends" / "kernel.py").write_text("from os import getenv\n")
    assert environment_reads(engine) == ["backends/docker.py:5", "backends/kernel.py:1"]


def test_every_variable_is_declared_once_and_read_by_the_engine():
    names = [s.name for s in settings.SETTINGS]
    assert len(set(names)) == len(names)
    declared = {name for name, value in vars(settings).items()
                if isinstance(value, settings.Setting)}
    assert len(declared) == len(settings.SETTINGS), "a Setting missing from SETTINGS"
    source = "\n".join(p.read_text(encoding="utf-8") for p in ENGINE.rglob("*.py")
                       if p.name != "settings.py")
    unused = [name for name in declared if not re.search(rf"\b{name}\b", source)]
    assert unused == [], f"declared but never read: {unused}"


def test_the_docs_show_the_table_settings_declares():
    """Each doc holds the table, one row per variable, in SETTINGS' order, worded as declared."""
    rows = [f"| `{s.name}` | {s.description} |" for s in settings.SETTINGS]
    table = "\n".join(["| variable | what it sets |", "|---|---|", *rows])
    for doc in ("README.md", "docs/ARCHITECTURE.md"):
        assert table in (ROOT / doc).read_text(encoding="utf-8"), \
            f"{doc} lacks the deployment variables as autograder/settings.py declares them"


def test_the_sandbox_imports_nothing_of_the_engine_but_settings():
    """sandbox/ is the lowest layer (docs/ARCHITECTURE.md): of the rest of the engine it may
    use only settings.py, which imports nothing of the engine."""
    outside = []
    for path in sorted((ENGINE / "sandbox").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level >= 2:
                names = [a.name for a in node.names] if node.module is None else [node.module]
                outside += [f"{path.name}: {n}" for n in names if n != "settings"]
    assert outside == []
    tree = ast.parse((ENGINE / "settings.py").read_text(encoding="utf-8"))
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
