"""An assignment's `forbidden` rules, and the static scan of a submission's source for them.

A rule is a dotted path: a top-level module (`"tiktoken"`), a module below it
(`"transformers.models"`, `"torch.func"`) or an attribute (`"scipy.stats.ttest_ind"`). A rule
starting with `!` is an exception (`"!transformers.models.llama"`): of all rules covering a
name, the longest decides, and the packages on the way to an exception stay importable. A rule
covers a name equal to it or below it (`torch.func` covers `torch.func.jacrev`, not
`torch.functional`).

The scan finds the dotted names a file reaches without running it: `import a.b`, `from a.b
import c` (a.b.c), `__import__`/`importlib.import_module` with a literal name, attribute chains on
names bound by imports (`import torch as t; t.autograd.functional.jacobian`) and `getattr` with a
constant string on such a chain. What a computed name reaches is for the run-time hook
(harness/boot.py) to stop.
"""

from __future__ import annotations

import ast

from ..sandbox.rules import covers, deciding_rule  # noqa: F401 (re-exported: the rules live there)


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """The dotted path an expression names, through import aliases and constant getattr."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, aliases)
        return f"{base}.{node.attr}" if base else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "getattr" and len(node.args) >= 2 \
            and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
        base = _dotted(node.args[0], aliases)
        return f"{base}.{node.args[1].value}" if base else None
    return None


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Names bound by absolute imports anywhere in the file -> the dotted path they hold."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    aliases[a.asname] = a.name
                else:
                    top = a.name.partition(".")[0]
                    aliases[top] = top
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:
                if a.name != "*":
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    return aliases


def _literal_import(node: ast.Call) -> str | None:
    if not node.args or not isinstance(node.args[0], ast.Constant) \
            or not isinstance(node.args[0].value, str):
        return None
    fn = node.func
    fname = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
    return node.args[0].value if fname in ("__import__", "import_module") else None


def reached_names(tree: ast.AST) -> list[tuple[str, int, str]]:
    """(dotted name, line, "imports" | "uses") for everything the file reaches statically
    (see the module doc)."""
    aliases = _aliases(tree)
    found: list[tuple[str, int, str]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            found += [(a.name, line, "imports") for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, line, "imports"))
            found += [(f"{node.module}.{a.name}", line, "imports") for a in node.names
                      if a.name != "*"]
        elif isinstance(node, (ast.Attribute, ast.Call)):
            name = _dotted(node, aliases)
            if name is not None:
                found.append((name, line, "uses"))
            elif isinstance(node, ast.Call) and (name := _literal_import(node)) is not None:
                found.append((name, line, "imports"))
    return found


def forbidden_uses(tree: ast.AST, rules: tuple[str, ...]) -> list[tuple[str, str, int, str]]:
    """(name, rule, line, "imports" | "uses") for the first use of each rule in the file (on
    its first line, the shortest name it reaches there: the module, not the function)."""
    if not rules:
        return []
    first: dict[str, tuple[int, int, str, str]] = {}
    for name, line, verb in reached_names(tree):
        rule = deciding_rule(rules, name)
        if rule is not None:
            key = (line, len(name), name, verb)
            if rule not in first or key < first[rule]:
                first[rule] = key
    return sorted(((name, rule, line, verb) for rule, (line, _, name, verb) in first.items()),
                  key=lambda t: (t[2], t[1]))
