"""Handout, starter and tests cannot drift apart: every name in each handout's API table exists in
the starter with the same parameters (names, kinds and defaults), and every name the tests import
from the package is in that table (the graded child stands in for those names when a package
lacks one: backends/run_folder.package_names)."""

import shutil
from pathlib import Path

import pytest

from autograder.assignments import discover, load
from autograder.authoring.contract import (
    NO_DEFAULT,
    ContractError,
    api_table,
    contract_problems,
    handout,
    parse_signature,
)
from autograder.backends.run_folder import package_names

ASSIGNMENTS = discover()
TOY = Path(__file__).parent / "toy_course"

TOY_HANDOUT = """# Toy

## The API (a contract: tests call exactly this)

| signature | contract |
|---|---|
| `add(a: float, b: float) -> float` | a + b |
| `mean(xs)` | the mean |
| `order(xs) -> list[int]` | indices that sort xs |

| other table | ignored |
|---|---|
| `not_checked(x)` | a table whose first header cell is not `signature` |
"""


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.name)
def test_handout_api_table_matches_the_starter(assignment):
    assert contract_problems(assignment) == []


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.name)
def test_the_tests_import_only_names_of_the_api_table(assignment):
    table = {entry.name.split(".")[0] for entry in api_table(handout(assignment))}
    assert set(package_names(assignment, ("public", "hidden"))) - table == set()


def test_signatures_are_read_with_kinds_and_defaults():
    entry = parse_signature("f(a, b=1e-3, *rest, c=None, **kw) -> (x, y)")
    assert entry.name == "f" and entry.params == (
        ("a", "POSITIONAL_OR_KEYWORD", NO_DEFAULT), ("b", "POSITIONAL_OR_KEYWORD", "0.001"),
        ("rest", "VAR_POSITIONAL", NO_DEFAULT), ("c", "KEYWORD_ONLY", "None"),
        ("kw", "VAR_KEYWORD", NO_DEFAULT))
    assert parse_signature("Tensor.T").params is None
    with pytest.raises(ContractError):
        parse_signature("f(a b)")


@pytest.fixture
def toy_copy(tmp_path) -> Path:
    root = tmp_path / "course"
    shutil.copytree(TOY, root)
    (root / "assignments" / "01_toy").mkdir(parents=True)
    (root / "assignments" / "01_toy" / "README.md").write_text(TOY_HANDOUT)
    return root


def test_agreeing_handout_and_starter_pass(toy_copy):
    assert contract_problems(load("toy", toy_copy)) == []


@pytest.mark.parametrize("old, new, expected", [
    ("| `mean(xs)` |", "| `median(xs)` |", "`median` is not in the starter"),
    ("| `mean(xs)` |", "| `mean(xs, weights=None)` |", "the starter has (xs)"),
    ("| `mean(xs)` |", "| `mean(values)` |", "the handout says (values)"),
    ("| `add(a: float, b: float) -> float` |", "| `add(a, b=0.0)` |", "says (a, b=0.0)"),
    ("| `mean(xs)` |", "| mean(xs) |", "must be one signature in backticks"),
    ("| signature |", "| name |", "has no API table"),
])
def test_drift_is_reported(toy_copy, old, new, expected):
    path = toy_copy / "assignments" / "01_toy" / "README.md"
    path.write_text(path.read_text().replace(old, new))
    problems = contract_problems(load("toy", toy_copy))
    assert len(problems) == 1 and expected in problems[0], problems


def test_starter_with_extra_public_parameter_is_reported(toy_copy):
    init = toy_copy / "starter" / "toy" / "__init__.py"
    init.write_text(init.read_text().replace("def order(xs: list[int])",
                                             "def order(xs: list[int], reverse=False)"))
    problems = contract_problems(load("toy", toy_copy))
    assert len(problems) == 1 and "the starter has (xs, reverse=False)" in problems[0], problems


def test_an_unreadable_return_type_is_reported(toy_copy):
    """assignment.toml's `[returns]` types are checked with the API table: a type the grader
    cannot read would fail every call silently (grading/returns.matches is False)."""
    toml = toy_copy / "tests" / "toy" / "assignment.toml"
    toml.write_text(toml.read_text() + '\n[returns]\norder = "list"\nmean = "ndarray[float64"\n')
    problems = contract_problems(load("toy", toy_copy))
    assert problems == ["tests/toy/assignment.toml [returns] mean: 'ndarray[float64' is not a "
                        "type (e.g. list, ndarray[float64], torch.Tensor, Tensor)"], problems
