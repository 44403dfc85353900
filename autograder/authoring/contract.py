"""The handout's API table against the starter: same public names, same parameters; and the
return types assignment.toml's `[returns]` states are ones the grader reads (grading/returns.py).
The course self-test runs `contract_problems` for every assignment.

A handout (assignments/NN_<name>/README.md) states its API in Markdown tables whose header's
first cell is `signature`; each row's first cell is one signature in backticks:

    | signature | contract |
    |---|---|
    | `train_bpe(text, vocab_size, special_tokens=[]) -> (vocab, merges)` | ... |
    | `Tokenizer.encode(text) -> list[int]` | ... |
    | `Tensor.T` | ... (no parentheses: an attribute of the class, e.g. a property) |

Names resolve from the package (`from bpe import Tokenizer`); `Class(...)` is the constructor,
`Class.method(...)` a method (without self). Parameters must match in name, kind and default;
the starter may add trailing private parameters (`_parents=()`) that have defaults. The starter
is imported in a child process, so the course's own process never imports student-facing code.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..assignments import Assignment
from ..grading.returns import check_type
from ..sandbox.threadsafe_ast import parse

NO_DEFAULT = "<none>"


@dataclass(frozen=True)
class Entry:
    """One row of an API table: a dotted name and, for a callable, its parameters as
    (name, kind, default repr or NO_DEFAULT); params is None for an attribute."""

    name: str
    params: tuple[tuple[str, str, str], ...] | None
    line: int


class ContractError(Exception):
    """A handout without a readable API table."""


def handout(assignment: Assignment) -> Path:
    if assignment.handout is None:
        raise ContractError(f"no handout assignments/NN_{assignment.name}/README.md")
    return assignment.handout


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _default(node: ast.expr | None) -> str:
    if node is None:
        return NO_DEFAULT
    try:
        return repr(ast.literal_eval(node))
    except ValueError:
        return ast.unparse(node)


def parse_signature(text: str, line: int = 0) -> Entry:
    """`name(params) -> ret` or `name` (an attribute) as an Entry."""
    match = re.fullmatch(r"\s*([A-Za-z_][\w.]*)\s*(\(.*\))?\s*(->.*)?", text)
    if not match:
        raise ContractError(f"line {line}: cannot read the signature `{text}`")
    name, params = match.group(1), match.group(2)
    if params is None:
        return Entry(name, None, line)
    try:
        args = parse(f"def f{params}: pass").body[0].args
    except SyntaxError as e:
        raise ContractError(f"line {line}: `{text}` is not a Python signature: {e.msg}") from None
    return Entry(name, _parameters(args), line)


def _parameters(args: ast.arguments) -> tuple[tuple[str, str, str], ...]:
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out = [(a.arg, "POSITIONAL_ONLY" if a in args.posonlyargs else "POSITIONAL_OR_KEYWORD",
            _default(d)) for a, d in zip(positional, defaults)]
    if args.vararg:
        out.append((args.vararg.arg, "VAR_POSITIONAL", NO_DEFAULT))
    out += [(a.arg, "KEYWORD_ONLY", _default(d)) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg:
        out.append((args.kwarg.arg, "VAR_KEYWORD", NO_DEFAULT))
    return tuple(out)


def api_table(path: Path) -> list[Entry]:
    """Every row of the `signature` tables in a handout."""
    entries, in_table = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.lstrip().startswith("|"):
            in_table = False
            continue
        cells = _cells(line)
        if cells[0].lower() == "signature":
            in_table = True
        elif in_table and not set(cells[0]) <= set("-: "):
            code = re.fullmatch(r"`([^`]+)`", cells[0])
            if not code:
                raise ContractError(f"{path.name}:{number}: the first cell must be one "
                                    f"signature in backticks, not {cells[0]!r}")
            entries.append(parse_signature(code.group(1), number))
    if not entries:
        raise ContractError(f"{path} has no API table (a Markdown table whose header's first "
                            "cell is `signature`; see docs/WRITING_TESTS.md)")
    return entries


_CHILD = r"""
import importlib, inspect, json, sys
package, names = sys.argv[1], json.loads(sys.argv[2])
module = importlib.import_module(package)
out = {}
for dotted in names:
    owner, obj, parts = None, module, dotted.split(".")
    try:
        for part in parts:
            owner, obj = obj, getattr(obj, part)
    except AttributeError:
        out[dotted] = "missing"
        continue
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        out[dotted] = None
        continue
    params = list(sig.parameters.values())
    if len(parts) > 1 and inspect.isclass(owner) and params and params[0].name == "self":
        params = params[1:]
    out[dotted] = [[p.name, p.kind.name, "<none>" if p.default is p.empty else repr(p.default)]
                   for p in params]
print(json.dumps(out))
"""


def starter_signatures(assignment: Assignment, names: list[str]) -> dict:
    """{name: "missing" | None (no signature) | [[param, kind, default repr], ...]}, read from
    the starter in a child process."""
    done = subprocess.run([sys.executable, "-c", _CHILD, assignment.package, json.dumps(names)],
                          cwd=assignment.starter, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        raise ContractError(f"importing starter/{assignment.package} failed: {tail[0]}")
    return json.loads(done.stdout)


def _show(params) -> str:
    marks = {"VAR_POSITIONAL": "*", "VAR_KEYWORD": "**"}
    return ", ".join(marks.get(kind, "") + name + ("" if d == NO_DEFAULT else f"={d}")
                     for name, kind, d in params)


def _mismatch(entry: Entry, found) -> str | None:
    if found == "missing":
        return f"`{entry.name}` is not in the starter"
    if entry.params is None or found is None:
        return None if entry.params is None else f"`{entry.name}` has no readable signature"
    found = [tuple(p) for p in found]
    wanted = list(entry.params)
    extra = found[len(wanted):]
    if found[: len(wanted)] != wanted or any(
            not name.startswith("_") or default == NO_DEFAULT for name, _, default in extra):
        return (f"`{entry.name}`: the handout says ({_show(wanted)}), the starter has "
                f"({_show(found)})")
    return None


def contract_problems(assignment: Assignment) -> list[str]:
    """Where the handout's API table and the starter disagree, and each `[returns]` type the
    grader cannot read (empty: none)."""
    toml = f"tests/{assignment.name}/assignment.toml"
    unread = [f"{toml} [returns] {name}: {why}" for name, contract in assignment.returns
              if (why := check_type(contract))]
    try:
        path = handout(assignment)
        entries = api_table(path)
        found = starter_signatures(assignment, [e.name for e in entries])
    except ContractError as e:
        return [*unread, str(e)]
    where = path.relative_to(assignment.root).as_posix()
    return [*unread, *(f"{where}:{e.line}: {problem}" for e in entries
                       if (problem := _mismatch(e, found[e.name])))]
