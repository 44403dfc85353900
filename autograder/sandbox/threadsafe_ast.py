"""`ast.parse` for the grader, whose threads parse at the same time (intake of several
submissions, stores' task titles, zygote preload lists, the children's view); in sandbox/, the
lowest layer, so that every package may use it.

CPython 3.11 keeps the AST constructor's recursion depth in per-interpreter state, not per call:
while one thread converts a tree, another thread's parse can make either raise a spurious
`SystemError: AST constructor recursion depth mismatch` (python/cpython#106905; seen here in a
pytest worker under load: a student's package would have failed intake). `parse` lets one
conversion run at a time; it costs milliseconds against a grade's seconds.
"""

from __future__ import annotations

import ast
import threading

_ONE_AT_A_TIME = threading.Lock()


def parse(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """ast.parse(source, filename), never beside another thread's `parse`."""
    with _ONE_AT_A_TIME:
        return ast.parse(source, filename=filename)


def compile_tree(tree: ast.Module, filename: str = "<unknown>"):
    """compile(tree, filename, "exec") - converting the tree back - never beside another
    thread's `parse` or `compile_tree`."""
    with _ONE_AT_A_TIME:
        return compile(tree, filename, "exec", dont_inherit=True)
