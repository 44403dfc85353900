"""The tolerance policy's lint (docs/WRITING_TESTS.md, "Tolerances"): a float `close`
observation compared tighter than float32 level carries a `# contract:` comment.

An observation is flagged when its expected value is floating point, rtol < MIN_RTOL and atol <
MIN_RTOL x the largest finite |expected| (or atol is 0) — unless a `close(` call reachable from
its test function (the function itself, then the common.py helpers it names, transitively)
that could have recorded it (its literal atol/rtol equal the observation's) carries
`# contract: <the SPEC clause>` on one of the call's lines or in the comment block right above
it. Tolerances passed as `**NAME`, NAME a module-level dict of the same file (or of common.py),
are read from that dict, and its assignment's lines and the comment block above it count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from ..assignments import VISIBILITIES, Assignment
from ..grading.store import ObservationSpec, load_store
from ..harness.plaindata import PlainDataError, decode
from ..sandbox.threadsafe_ast import parse

MIN_RTOL = 1e-6  # float32's epsilon is 1.2e-7: a few ulps of float32 arithmetic
CONTRACT_MARK = "# contract:"


def too_tight(spec: ObservationSpec) -> bool:
    """Whether a `close` observation of a float value is compared tighter than the policy."""
    if spec.kind != "close" or spec.rtol >= MIN_RTOL:
        return False
    try:
        arr = np.asarray(decode(spec.expected))
    except (PlainDataError, RecursionError, TypeError, ValueError):
        return False
    if arr.dtype.kind != "f" or arr.size == 0:
        return False
    finite = np.abs(arr[np.isfinite(arr)])
    scale = float(finite.max()) if finite.size else 0.0
    return spec.atol <= 0 or spec.atol < MIN_RTOL * scale


def _functions(path: Path) -> tuple[dict[str, ast.FunctionDef], list[str]]:
    if not path.exists():
        return {}, []
    text = path.read_text(encoding="utf-8")
    tree = parse(text)
    return ({n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)},
            text.splitlines())


def _constants(path: Path) -> dict[str, ast.Assign]:
    """Module-level `NAME = {...}` assignments of a test file (tolerance dicts)."""
    if not path.exists():
        return {}
    tree = parse(path.read_text(encoding="utf-8"))
    return {target.id: node for node in tree.body if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Dict) for target in node.targets
            if isinstance(target, ast.Name)}


def _mark_near(lines: list[str], first: int, last: int) -> bool:
    """Whether lines first..last (1-based) or the comment block right above them hold the mark."""
    if any(CONTRACT_MARK in lines[i - 1] for i in range(first, last + 1)):
        return True
    i = first - 1
    while i >= 1 and lines[i - 1].strip().startswith("#"):
        if CONTRACT_MARK in lines[i - 1]:
            return True
        i -= 1
    return False


def _literal(node: ast.AST | None) -> float | None:
    """A numeric literal's value (`1e-6`, `-0.0`, `0`); None for anything computed."""
    try:
        value = ast.literal_eval(node) if node is not None else None
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def _unpacked(call: ast.Call, constants: dict[str, ast.Assign]) -> list[ast.Assign]:
    """The module-level dicts a call unpacks with `**NAME`."""
    return [constants[k.value.id] for k in call.keywords
            if k.arg is None and isinstance(k.value, ast.Name) and k.value.id in constants]


def _call_fits(call: ast.Call, spec: ObservationSpec,
               constants: dict[str, ast.Assign] | None = None) -> bool:
    """Whether a close(name, value, atol, rtol) call could have recorded `spec`: each
    tolerance given as a literal (or left at its default 0) equals the spec's."""
    given = {}
    for node in _unpacked(call, constants or {}):
        given.update({k.value: v for k, v in zip(node.value.keys, node.value.values)
                      if isinstance(k, ast.Constant) and k.value in ("atol", "rtol")})
    given.update({k.arg: k.value for k in call.keywords if k.arg in ("atol", "rtol")})
    for i, key in ((2, "atol"), (3, "rtol")):
        if len(call.args) > i:
            given[key] = call.args[i]
    for key in ("atol", "rtol"):
        if key not in given:
            if getattr(spec, key) != 0.0:
                return False
            continue
        value = _literal(given[key])
        if value is not None and value != getattr(spec, key):
            return False
    return True


def _marked_call(fn: ast.FunctionDef, lines: list[str], spec: ObservationSpec,
                 constants: dict[str, ast.Assign] | None = None) -> bool:
    """Whether a close( call in fn that could have recorded `spec` carries the contract mark
    on one of its lines, in the comment block above it, or at the tolerance dict it unpacks."""
    for call in ast.walk(fn):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "close" and _call_fits(call, spec, constants)):
            continue
        if _mark_near(lines, call.lineno, call.end_lineno):
            return True
        if any(_mark_near(lines, node.lineno, node.end_lineno)
               for node in _unpacked(call, constants or {})):
            return True
    return False


def _passes_marked_tolerance(fn: ast.FunctionDef, lines: list[str], spec: ObservationSpec,
                             constants: dict[str, ast.Assign]) -> bool:
    """Whether fn hands a helper a module-level tolerance dict (`helper(rec, cases, TOL)`)
    whose literal atol/rtol are the spec's and whose assignment carries the mark."""
    for name in {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} & set(constants):
        node = constants[name]
        values = {k.value: _literal(v) for k, v in zip(node.value.keys, node.value.values)
                  if isinstance(k, ast.Constant) and k.value in ("atol", "rtol")}
        if values and all(values.get(key, 0.0) == getattr(spec, key) for key in ("atol", "rtol")) \
                and _mark_near(lines, node.lineno, node.end_lineno):
            return True
    return False


def contract_marked(assignment: Assignment, visibility: str, file: str, test_id: str,
                    spec: ObservationSpec) -> bool:
    """Whether a close( call reachable from the test function (itself, then the helpers of
    its file and of common.py it names, transitively) that could have recorded `spec`
    carries `# contract:`."""
    own, own_lines = _functions(assignment.tests_dir / visibility / file)
    common, common_lines = _functions(assignment.common_module)
    own_constants = _constants(assignment.tests_dir / visibility / file)
    common_constants = _constants(assignment.common_module)
    constants_of = {id(own_lines): own_constants, id(common_lines): common_constants}
    todo = [(own.get(test_id), own_lines)]
    seen: set[str] = {test_id}
    while todo:
        fn, lines = todo.pop()
        if fn is None:
            continue
        if _marked_call(fn, lines, spec, constants_of.get(id(lines))):
            return True
        if _passes_marked_tolerance(fn, lines, spec, constants_of.get(id(lines)) or {}):
            return True
        called = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
        called |= {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute)}  # methods
        for name in called - seen:
            seen.add(name)
            if name in own:
                todo.append((own[name], own_lines))
            elif name in common:
                todo.append((common[name], common_lines))
    return False


def tolerance_problems(assignment: Assignment) -> list[str]:
    """Every float `close` observation of the committed goldens tighter than the policy
    without a `# contract:` comment, one line each (alike names of a test grouped)."""
    problems = []
    for vis in VISIBILITIES:
        store = load_store(assignment, vis)
        for test_id, test in store.tests.items():
            marked: dict[tuple[float, float], bool] = {}  # one source scan per tolerance pair
            tight = []
            for n, spec in sorted(test.observations.items()):
                if too_tight(spec):
                    key = (spec.atol, spec.rtol)
                    if key not in marked:
                        marked[key] = contract_marked(assignment, vis, test.file, test_id, spec)
                    if not marked[key]:
                        tight.append(n)
            if not tight:
                continue
            spec = test.observations[tight[0]]
            more = f" (+{len(tight) - 1} more)" if len(tight) > 1 else ""
            problems.append(f"{assignment.name} {vis} {test_id}/{tight[0]}{more}: atol="
                            f"{spec.atol:g}, rtol={spec.rtol:g} on a float result; loosen to "
                            f"the policy or add '{CONTRACT_MARK} <SPEC clause>' on its close()")
    return problems
