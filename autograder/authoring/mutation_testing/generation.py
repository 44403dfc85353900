"""Mutant generation: cosmic-ray's core operators applied one at a time to each file of
solutions/<package>/; mutants that change only annotations, do not compile, or repeat another's
code are dropped; a seeded sample is drawn from the rest (see the package docstring)."""

from __future__ import annotations

import ast
import difflib
import random
import warnings
from collections.abc import Callable
from dataclasses import dataclass

from ...assignments import Assignment
from ...markers import BEGIN as SOLUTION_MARKER

# operators that need arguments (a variable name) to do anything
_SKIPPED_OPERATORS = ("VariableReplacer", "VariableInserter")
_EXCEPTION_NAME = "CosmicRayTestingException"
_EXCEPTION_DEFINITION = (f"\n\nclass {_EXCEPTION_NAME}(Exception):\n"
                         "    \"\"\"Raised by nothing: an except clause naming it never catches.\"\"\"\n")


class MutationError(Exception):
    """The mutation run cannot start (bad equivalent-mutants file, missing tool)."""


@dataclass(frozen=True)
class Mutation:
    """One mutant: the whole mutated text of one file of the solution package."""

    key: str  # stable name: "file::function: old line => new line"
    file: str  # relative to solutions/<package>/
    operator: str
    code: str


def _operators() -> list[tuple[str, Callable]]:
    try:
        from cosmic_ray.operators.provider import OperatorProvider
    except ImportError as e:  # pragma: no cover - a dev dependency
        raise MutationError(f"cosmic-ray is not installed ({e}); run `make setup`") from None
    provider = OperatorProvider()
    return [(name, provider[name]) for name in sorted(provider) if name not in _SKIPPED_OPERATORS]


def _compiles(code: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. `x is 0`: still a mutant
            compile(code, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _lazy_annotations(tree: ast.Module) -> bool:
    return any(isinstance(n, ast.ImportFrom) and n.module == "__future__"
               and any(a.name == "annotations" for a in n.names) for n in tree.body)


def _annotation_lines(code: str) -> set[int]:
    """Lines holding an annotation that is never evaluated (`from __future__ import
    annotations`): a mutant changing one of them may change nothing."""
    tree = ast.parse(code)
    if not _lazy_annotations(tree):
        return set()
    lines: set[int] = set()
    for node in ast.walk(tree):
        parts = [getattr(node, "returns", None), getattr(node, "annotation", None)]
        for part in parts:
            if isinstance(part, ast.AST):
                lines.update(range(part.lineno, (part.end_lineno or part.lineno) + 1))
    return lines


def _without_annotations(code: str) -> str:
    """The module's AST without its (never evaluated) annotations."""
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
        if isinstance(node, ast.arg):
            node.annotation = None
        if isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(None)
    return ast.dump(tree)


def _scopes(code: str) -> list[str]:
    """For each line (1-based index), the qualified name of the innermost def/class around it."""
    lines = code.count("\n") + 2
    names = ["<module>"] * (lines + 1)

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                for line in range(start, (child.end_lineno or child.lineno) + 1):
                    names[line] = name
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(code), "")
    return names


def _describe(original: str, mutated: str) -> tuple[int, str, str]:
    """(line number, old line, new line) of the first change; blank lines are skipped and
    runs of spaces shown as one."""
    a, b = original.splitlines(), mutated.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        olds = [(i, " ".join(a[i].split())) for i in range(i1, i2) if a[i].strip()]
        news = [" ".join(b[j].split()) for j in range(j1, j2) if b[j].strip()]
        line, old = olds[0] if olds else (i1, "(nothing)")
        return line + 1, old, news[0] if news else "(line removed)"
    return 1, "", ""


def _applies(name: str, node) -> bool:
    """Cheap pre-filter: which nodes an operator family can mutate at all (the operator's own
    mutation_positions decides)."""
    if name.startswith("ReplaceBinaryOperator"):
        return node.type == "operator"
    if name.startswith("ReplaceComparisonOperator"):
        return node.type == "comparison"
    if name.startswith("ReplaceUnaryOperator"):
        return node.type in ("factor", "not_test")
    return True


def _subtree(node) -> list:
    found, stack = [], [node]
    while stack:
        n = stack.pop()
        found.append(n)
        stack.extend(getattr(n, "children", ()))
    return found


def _mutated_codes(code: str, operators: list[tuple[str, Callable]]) -> list[tuple[str, str]]:
    """Every (operator name, mutated text) cosmic-ray's operators make in `code`: one parse,
    each mutation applied in place to the parse tree, printed, then undone."""
    import parso
    from cosmic_ray.ast import ast_nodes

    tree = parso.parse(code)
    instances = [(name, cls()) for name, cls in operators]
    found = []
    for node in list(ast_nodes(tree)):
        for name, operator in instances:
            if not _applies(name, node):
                continue
            for index, _ in enumerate(list(operator.mutation_positions(node))):
                saved = [(n, n.parent, list(n.children) if hasattr(n, "children") else n.value)
                         for n in _subtree(node)]
                parent = node.parent
                siblings = list(parent.children) if parent is not None else None
                try:
                    mutated = operator.mutate(node, index)
                    if parent is not None and mutated is not node:  # replaced or removed
                        parent.children = [mutated if c is node else c for c in siblings
                                           if c is not node or mutated is not None]
                    text = tree.get_code()
                except Exception:  # noqa: BLE001 - an operator that cannot handle this node
                    text = None
                finally:
                    for n, old_parent, state in saved:
                        n.parent = old_parent
                        if hasattr(n, "children"):
                            n.children = state
                        else:
                            n.value = state
                    if parent is not None:
                        parent.children = siblings
                if text is not None:
                    found.append((name, text))
    return found


def generate(assignment: Assignment) -> list[Mutation]:
    """Every distinct, compiling mutant of the files of solutions/<package>/ that the student
    writes (those with solution markers; a file without any, such as scaling's lbfgs.py, the
    starter ships whole), sorted by key."""
    package = assignment.solutions / assignment.package
    operators = _operators()
    mutations: list[Mutation] = []
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        rel = path.relative_to(package).as_posix()
        code = path.read_text(encoding="utf-8")
        if SOLUTION_MARKER not in code:
            continue  # given whole to the student (the starter ships it as is): not theirs
        annotation_lines = _annotation_lines(code)
        baseline = _without_annotations(code) if annotation_lines else ""
        scopes = _scopes(code)
        seen = {code}
        keys: dict[str, int] = {}
        for name, mutated in _mutated_codes(code, operators):
            if mutated in seen:
                continue
            seen.add(mutated)
            if _EXCEPTION_NAME in mutated:
                mutated += _EXCEPTION_DEFINITION
            if not _compiles(mutated):
                continue
            line, old, new = _describe(code, mutated)
            if line in annotation_lines and _without_annotations(mutated) == baseline:
                continue  # only an annotation changed
            key = f"{rel}::{scopes[line]}: {old} => {new}".replace("`", "'")
            keys[key] = keys.get(key, 0) + 1
            if keys[key] > 1:  # the same edit of an identical line elsewhere in the scope
                key += f" [{keys[key]}]"
            mutations.append(Mutation(key, rel, name, mutated))
    return sorted(mutations, key=lambda m: m.key)


def sample(mutations: list[Mutation], n: int | None, seed: int, salt: str = "") -> list[Mutation]:
    """The first n of a seeded shuffle (a smaller sample is a prefix of a larger one);
    all of them when n is None."""
    order = list(mutations)
    random.Random(f"{seed}:{salt}").shuffle(order)
    return order if n is None else order[:n]
