"""The engine's import graph: which package of autograder/ imports which, regenerated into
docs/ARCHITECTURE.md between its `import-graph` markers.

    python docs/import_graph.py          # rewrite the section in docs/ARCHITECTURE.md
    python docs/import_graph.py --check  # exit 1 when the section is stale or a cycle exists

Every import counts, at module level or inside a function, except those under
`if TYPE_CHECKING:` (they never run). A node is a package below autograder/ (grading,
backends, ...) or a top-level module (cli, assignments, ...). `tests/selftest/test_layout.py`
checks that the committed section is current and that neither modules nor packages form a
cycle.

The allowed edges are a hand-kept table in docs/ARCHITECTURE.md (header
`| package | may import |`), one row per package of autograder/ with the top-level modules as
one node, `(top)`; `allowed_edges` reads it and `unlisted_edges` names every package import the
table does not list, so a new edge fails until the table says so.

    python docs/import_graph.py --edges  # print the current edges as that table
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "autograder"
DOC = ROOT / "docs" / "ARCHITECTURE.md"
BEGIN, END = "<!-- import-graph:begin -->", "<!-- import-graph:end -->"
TOP = "(top)"
EDGES_HEADER = "| package | may import |"


def module_name(path: Path, engine: Path = ENGINE) -> str:
    rel = path.relative_to(engine.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST):
    """Import nodes that run (not under `if TYPE_CHECKING:`)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def module_graph(engine: Path = ENGINE) -> dict[str, set[str]]:
    """Each engine module -> the engine modules it imports (a package's __init__ counts as the
    package; `from pkg import mod` as an import of pkg.mod)."""
    files = {module_name(p, engine): p for p in sorted(engine.rglob("*.py"))
             if "__pycache__" not in p.parts}
    graph: dict[str, set[str]] = {m: set() for m in files}
    for mod, path in files.items():
        package = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - node.level + 1]
                    prefix = ".".join(base + ([node.module] if node.module else []))
                else:
                    prefix = node.module or ""
                targets = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in files else prefix
                           for a in node.names]
            for target in targets:
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != mod:
                    graph[mod].add(target)
    return graph


def node_of(module: str) -> str:
    """The graph node: autograder.grading.judge -> grading; autograder.cli -> cli."""
    parts = module.split(".")
    if len(parts) == 1:
        return "autograder"
    return "cli" if parts[1] == "__main__" else parts[1]


def package_graph(modules: dict[str, set[str]]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {node_of(m): set() for m in modules}
    for mod, targets in modules.items():
        for t in targets:
            if node_of(t) != node_of(mod):
                graph[node_of(mod)].add(node_of(t))
    graph.pop("autograder", None)
    for targets in graph.values():
        targets.discard("autograder")
    return graph


def edges(modules: dict[str, set[str]]) -> dict[str, set[str]]:
    """Each node of the allowed-edges table -> the other nodes its modules import. A node is a
    package of autograder/ (grading, backends, ...) or `(top)`, every top-level module
    (cli, assignments, audiences, ...) and autograder/__init__ together."""
    packages = {m.split(".")[1] for m in modules if m.count(".") >= 2}

    def node(module: str) -> str:
        parts = module.split(".")
        return parts[1] if len(parts) > 1 and parts[1] in packages else TOP

    graph: dict[str, set[str]] = {node(m): set() for m in modules}
    for mod, targets in modules.items():
        for t in targets:
            if node(t) != node(mod):
                graph[node(mod)].add(node(t))
    return graph


def allowed_edges(doc: str) -> dict[str, set[str]]:
    """The table under EDGES_HEADER: `| `node` | `a`, `b` |` rows (`—` for none)."""
    lines = doc.splitlines()
    if EDGES_HEADER not in lines:
        raise ValueError(f"no allowed-edges table (header {EDGES_HEADER!r})")
    table: dict[str, set[str]] = {}
    for line in lines[lines.index(EDGES_HEADER) + 2:]:
        if not line.startswith("|"):
            break
        node, targets = (cell.strip() for cell in line.strip().strip("|").split("|"))
        table[node.strip("`")] = {t.strip().strip("`") for t in targets.split(",")
                                  if t.strip().strip("`") not in ("", "—", "-")}
    return table


def unlisted_edges(graph: dict[str, set[str]], allowed: dict[str, set[str]]) -> list[str]:
    """`a -> b` for each edge of the graph the table does not allow, sorted."""
    return [f"{node} -> {target}" for node in sorted(graph)
            for target in sorted(graph[node]) if target not in allowed.get(node, set())]


def render_edges(graph: dict[str, set[str]]) -> str:
    """The allowed-edges table that lists exactly the edges of the graph."""
    rows = [EDGES_HEADER, "|---|---|"]
    for node in [TOP] + sorted(n for n in graph if n != TOP):
        shown = ", ".join(f"`{t}`" for t in sorted(graph.get(node, ()))) or "—"
        rows.append(f"| `{node}` | {shown} |")
    return "\n".join(rows)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on, stack, found = set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def render(engine: Path = ENGINE) -> str:
    """The ARCHITECTURE.md section: a mermaid graph of the packages, then each package's
    modules."""
    modules = module_graph(engine)
    packages = package_graph(modules)
    lines = [BEGIN, "", "```mermaid", "flowchart TD"]
    for node in sorted(packages):
        for target in sorted(packages[node]):
            lines.append(f"    {node} --> {target}")
    lines += ["```", "", "| package | modules |", "|---|---|"]
    members: dict[str, list[str]] = {}
    for mod in modules:
        if node_of(mod) != "autograder":
            parts = mod.split(".")
            members.setdefault(node_of(mod), []).append(".".join(parts[2:]) or parts[1])
    for node in sorted(members):
        shown = ", ".join(sorted(members[node]))
        lines.append(f"| `{node}` | {shown} |")
    lines += ["", f"Generated by `python docs/import_graph.py`; {len(modules)} modules, "
              f"no import cycle between modules or packages (tests/selftest/test_layout.py).",
              "", END]
    return "\n".join(lines)


def with_section(doc: str, section: str) -> str:
    if BEGIN not in doc or END not in doc:
        return doc.rstrip() + "\n\n## Import graph\n\n" + section + "\n"
    head, rest = doc.split(BEGIN, 1)
    return head + section + rest.split(END, 1)[1]


def main(argv: list[str]) -> int:
    modules = module_graph()
    found = cycles(modules) + cycles(package_graph(modules))
    for c in found:
        print("import cycle: " + " -> ".join(c), file=sys.stderr)
    doc = DOC.read_text(encoding="utf-8")
    fresh = with_section(doc, render())
    if "--edges" in argv:
        print(render_edges(edges(modules)))
        return 0
    unlisted = unlisted_edges(edges(modules), allowed_edges(DOC.read_text(encoding="utf-8")))
    for edge in unlisted:
        print(f"import not in the allowed-edges table: {edge}", file=sys.stderr)
    found = found + unlisted
    if "--check" in argv:
        if fresh != doc:
            print(f"{DOC.relative_to(ROOT)}: the import graph is stale; run "
                  f"`python docs/import_graph.py`", file=sys.stderr)
        return 1 if found or fresh != doc else 0
    DOC.write_text(fresh, encoding="utf-8")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
