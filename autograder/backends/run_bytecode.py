"""Bytecode for the course's own files in a run folder. Trusted.

A graded child runs `python -B` (it never writes a .pyc) on a fresh run folder, so without
this it compiles the harness and common.py, and pytest rewrites and compiles its test files,
in every child: 10-20 ms of a child's CPU, paid again by each of the thousands of children a
class costs. `place` writes, beside each such file copied into the folder, the .pyc its
importer checks first: a checked-hash pyc (PEP 552) that the importer verifies against the
copied source's hash, so a file that does not match it is compiled as before, never run from
stale bytecode. The harness and common.py get CPython's own pyc; a test file gets the pyc
pytest's assertion rewriter reads (`_pytest.assertion.rewrite`: its file name and format),
holding the rewritten code. Each is built once per grader process while its source is
unchanged. Never for the submission's own files (compiling untrusted code stays in the child),
and nothing at all where pytest's rewriter has changed (the child then rewrites as before).
"""

from __future__ import annotations

import functools
import importlib.util
import marshal
import sys
from pathlib import Path

from ..sandbox.threadsafe_ast import compile_tree, parse

CHECKED_HASH = b"\x03\x00\x00\x00"  # PEP 552 flags: hash-based, always checked


def place(copy: Path, rewritten: bool) -> None:
    """Write the pyc of the file `copy` where the child's importer looks for it: pytest's
    (`rewritten`: a test file) or CPython's. Best effort: nothing is written when it cannot
    be built."""
    built = _pyc(copy.read_bytes(), rewritten)
    if built is None:
        return
    tail, data = built
    cache = copy.parent / "__pycache__"
    cache.mkdir(exist_ok=True)
    (cache / (copy.name[:-3] + tail)).write_bytes(data)


@functools.lru_cache(maxsize=256)
def _pyc(source: bytes, rewritten: bool) -> tuple[str, bytes] | None:
    """(the pyc's file name after the module's name, its bytes), or None."""
    try:
        if rewritten:
            code, tail = _rewritten_code(source)
        else:
            code = compile(source, "<run folder>", "exec", dont_inherit=True)
            tail = f".{sys.implementation.cache_tag}.pyc"
    except (SyntaxError, ValueError, ImportError, AttributeError, TypeError):
        return None
    return tail, (importlib.util.MAGIC_NUMBER + CHECKED_HASH
                  + importlib.util.source_hash(source) + marshal.dumps(code))


def _rewritten_code(source: bytes):
    """The code pytest's assertion rewriter makes of a test file (no config: the children's
    pytest.ini sets none of its options), and its pyc's file-name tail."""
    from _pytest.assertion import rewrite

    tree = parse(source, "<run folder>")
    rewrite.rewrite_asserts(tree, source, "<run folder>", None)
    return compile_tree(tree, "<run folder>"), rewrite.PYC_TAIL
