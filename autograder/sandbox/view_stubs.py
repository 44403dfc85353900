"""What a module the child's view replaces becomes (sandbox/view.py): the same source with
named top-level definitions turned into stubs that raise ImportError, or a module whose import
raises it. Pure text-to-text functions of the original source."""

from __future__ import annotations

import ast

from .threadsafe_ast import parse

MESSAGE = "module '{rule}' is forbidden in this assignment"


def raise_line(rule: str) -> str:
    """The statement a stub raises with: the ImportError of MESSAGE, the rule attached as
    `graded_forbidden` (what the harness reports; its text is never parsed)."""
    return (f"error = ImportError({MESSAGE.format(rule=rule)!r}); "
            f"error.graded_forbidden = {rule!r}; raise error")


def top_nodes(tree: ast.Module) -> list[ast.stmt]:
    """Top-level statements, those inside top-level `if`/`try` blocks included."""
    out: list[ast.stmt] = []
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        out.append(node)
        if isinstance(node, ast.If):
            todo += node.body + node.orelse
        elif isinstance(node, ast.Try):
            todo += node.body + node.orelse + node.finalbody
            for h in node.handlers:
                todo += h.body
    return out


DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def stub_source(name: str, rule: str, is_class: bool) -> str:
    message, raising = MESSAGE.format(rule=rule), raise_line(rule)
    if not is_class:
        return (f"def {name}(*args, **kwargs):\n"
                f"    {raising}\n")
    return (f"class {name}:\n"
            f"    \"\"\"Removed: {message}.\"\"\"\n\n"
            f"    def __init_subclass__(cls, **kwargs):\n"
            f"        {raising}\n\n"
            f"    def __new__(cls, *args, **kwargs):\n"
            f"        {raising}\n\n"
            f"    def __class_getitem__(cls, item):\n"
            f"        return cls\n")


def stubbed_text(text: str, names: dict[str, str] | None, rule_for_all: str | None) -> str:
    """`text` with the top-level definitions in `names` (name -> rule), or every top-level
    class and function (`rule_for_all`), replaced by stubs; decorators go with them."""
    tree = parse(text)
    lines = text.splitlines(keepends=True)
    names = dict(names or {}) if not rule_for_all else {}
    if names:
        names = with_private_helpers(tree, names)
    spans = []
    for node in top_nodes(tree):
        if not isinstance(node, DEFS):
            continue
        rule = rule_for_all if rule_for_all else names.get(node.name)
        if rule is None:
            continue
        start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
        indent = " " * node.col_offset
        stub = stub_source(node.name, rule, isinstance(node, ast.ClassDef))
        stub = "".join(indent + line if line.strip() else line
                       for line in stub.splitlines(keepends=True))
        spans.append((start, node.end_lineno, stub))
    for start, end, stub in sorted(spans, reverse=True):
        lines[start:end] = [stub]
    return "".join(lines)


def with_private_helpers(tree: ast.Module, names: dict[str, str]) -> dict[str, str]:
    """`names` plus the module's private top-level functions (`_name`) that only the
    definitions being removed use (scipy's `_unequal_var_ttest_denom`: the Welch part of
    `ttest_ind`)."""
    names = dict(names)
    nodes = [n for n in top_nodes(tree) if not isinstance(n, (ast.If, ast.Try))]
    while True:
        used: set[str] = set()
        for node in nodes:
            if isinstance(node, DEFS) and node.name in names:
                continue
            used |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            used |= {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
            if isinstance(node, ast.Assign):  # __all__ and other string references
                used |= {n.value for n in ast.walk(node) if isinstance(n, ast.Constant)
                         and isinstance(n.value, str)}
        extra = {n.name: next(iter(names.values())) for n in nodes
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name.startswith("_") and not n.name.startswith("__")
                 and n.name not in names and n.name not in used
                 and any(n.name in {m.id for m in ast.walk(d) if isinstance(m, ast.Name)}
                         for d in nodes if isinstance(d, DEFS) and d.name in names)}
        if not extra:
            return names
        names.update(extra)


def masked_text(rule: str) -> str:
    return f"{raise_line(rule)}\n"
