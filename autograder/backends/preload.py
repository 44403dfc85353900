"""What a warm interpreter imports for an assignment before it forks graded children: the
third-party modules its tests and reference import, never its own package, tests or anything
of a submission (backends/warmbox.py's zygote)."""

from __future__ import annotations

import ast

from ..assignments import VISIBILITIES, Assignment
from ..harness.boot import BLOCKED_PLUGINS, ForbiddenImportBlocker
from ..sandbox.threadsafe_ast import parse

ALWAYS = ("pytest", "numpy")  # what the harness itself imports
# what torch imports on first use, seconds each (an optimizer's first step and
# use_deterministic_algorithms import torch._dynamo: docs/PERFORMANCE.md)
TORCH_FIRST_USE = ["torch._dynamo", "torch.autograd"]


def preload_list(assignment: Assignment) -> list[str]:
    """The modules the assignment's test files, common.py and reference solution import
    (anywhere in them, as `module` or `module:attribute` where an attribute of an imported module
    is used: a lazy module loads that part), the harness's own, and what torch loads on first
    use; never the assignment's package, the tests' own modules, the engine, or anything the
    assignment forbids (top-level or dotted rule)."""
    tests = [f for vis in VISIBILITIES for f in assignment.test_files(vis)]
    if assignment.common_module.exists():
        tests.append(assignment.common_module)
    solution = sorted((assignment.solutions / assignment.package).rglob("*.py"))
    local = {f.stem for f in tests + solution} | {"common", assignment.package, "autograder"}
    blocker = ForbiddenImportBlocker(assignment.forbidden)
    names: list[str] = [*ALWAYS, *pytest_plugins()]
    for f in tests + solution:
        try:
            tree = parse(f.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        bound: dict[str, str] = {}  # a name an `import m` binds -> m
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names += [a.name for a in node.names]
                bound.update({(a.asname or a.name): a.name for a in node.names
                              if a.asname or "." not in a.name})
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.append(node.module)
                names += [f"{node.module}:{a.name}" for a in node.names if a.name != "*"]
        for node in ast.walk(tree):  # `transformers.GPT2LMHeadModel`: a lazy module's part
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in bound:
                names.append(f"{bound[node.value.id]}:{node.attr}")
    if "torch" in names:
        names += TORCH_FIRST_USE
    out: list[str] = []
    for name in names:
        module = name.partition(":")[0]
        dotted = name.replace(":", ".")
        if module.split(".")[0] in local or name in out:
            continue
        if blocker.rule_for(module) is not None or blocker.rule_for(dotted) is not None:
            continue
        out.append(name)
    return out


def pytest_plugins() -> list[str]:
    """The modules of the built-in pytest plugins a child's pytest registers (all but
    BLOCKED_PLUGINS): `import pytest` loads few of them, and each child's pytest.main imported
    the rest, about 45 ms of CPU a child."""
    from _pytest.config import default_plugins

    return [f"_pytest.{name}" for name in default_plugins if name not in BLOCKED_PLUGINS]
