"""The contract's return types (assignment.toml's [returns]; harness/returned.py records, the
parent's grading/returns.py judges): a function that returns another type than the contract
states fails its test with a message naming the function, the type returned and the
contract's; what the contract leaves free (a subclass, a NumPy scalar for a 0-d array, a
frozenset for a set) passes; every table names functions the tests call, read as types."""

from __future__ import annotations

import shutil
import types
from pathlib import Path

import numpy as np
import pytest
from helpers import SOLUTION, check_results, grade_root, submission

from autograder.assignments import discover, load
from autograder.grading.returns import check_type, matches, violations
from autograder.harness.returned import ReturnedTypes

COURSE = discover()


def _described(package: str, value, exported: dict | None = None) -> dict:
    returned = ReturnedTypes(package, ["f"])
    returned.exported = exported or {}
    returned.record("f", value)
    return returned.since_mark()["f"][0]


class _Sub(np.ndarray):
    pass


@pytest.mark.parametrize(("contract", "value", "ok"), [
    ("ndarray[float64]", np.zeros(3), True),
    ("ndarray[float64]", np.zeros(3).view(_Sub), True),  # a subclass
    ("ndarray[float64]", np.float64(1.0), True),  # a NumPy scalar: a 0-d value
    ("ndarray[float64]", np.array(1.0), True),  # a 0-d array
    ("ndarray[float64]", [1.0, 2.0], False),
    ("ndarray[float64]", 1.0, False),
    ("ndarray[float64]", np.zeros(3, np.float32), False),
    ("ndarray[uint64]", np.zeros(3, np.uint64), True),
    ("ndarray", np.zeros(3, np.int8), True),
    ("list", [1], True),
    ("list", (1,), False),
    ("set", {1}, True),
    ("set", frozenset({1}), True),
    ("set", [1], False),
    ("str", "forward", True),
    ("str", b"forward", False),
])
def test_a_returned_type_matches_its_contract(contract, value, ok):
    assert check_type(contract) is None
    assert matches(contract, _described("pkg", value), "pkg") is ok


def test_the_packages_own_class_matches_by_its_exported_name():
    class Tensor:
        pass

    class Mine(Tensor):
        pass

    exported = {Tensor: "Tensor"}
    assert matches("Tensor", _described("pkg", Mine(), exported), "pkg")
    assert not matches("Tensor", _described("pkg", np.zeros(2), exported), "pkg")
    assert check_type("ndarray[float64") and check_type("list[int]") and check_type("np.ndarray")


def test_wrapped_functions_record_their_results_and_leave_the_rest_alone():
    module = types.ModuleType("pkg")

    class Tensor:
        def __init__(self, v):
            self.v = v

        def __add__(self, other):
            if not isinstance(other, Tensor):
                return NotImplemented  # declining: Python asks the other side; not a result
            return self.v + other.v  # the mistake: a number, not a Tensor

        @property
        def T(self):  # noqa: N802 - the contract's name
            return self

    def unbroadcast(grad, shape):
        return list(grad)

    module.Tensor, module.unbroadcast = Tensor, unbroadcast
    returned = ReturnedTypes("pkg", ["unbroadcast", "Tensor.__add__", "Tensor.T", "missing"])
    returned.wrap_package(module)
    returned.mark()
    assert module.unbroadcast((1.0, 2.0), (2,)) == [1.0, 2.0]
    t = Tensor(2)
    assert t + Tensor(3) == 5 and t.T is t
    assert Tensor.__add__(t, 1) is NotImplemented
    got = returned.since_mark()
    assert got == {"unbroadcast": [{"classes": ["list"], "dtype": None}],
                   "Tensor.__add__": [{"classes": ["int"], "dtype": None}],
                   "Tensor.T": [{"classes": ["pkg.Tensor"], "dtype": None}]}
    contract = [("unbroadcast", "ndarray[float64]"), ("Tensor.__add__", "Tensor"),
                ("Tensor.T", "Tensor")]
    assert violations(contract, got, "pkg") == [
        "unbroadcast() returned a list; the contract says it returns a float64 ndarray",
        "Tensor.__add__() returned an int; the contract says it returns a pkg Tensor"]
    returned.mark()
    assert returned.since_mark() == {}


def _minigrad_with(tmp_path: Path, old: str, new: str) -> Path:
    minigrad = load("minigrad")
    dest = tmp_path / "sub"
    shutil.copytree(minigrad.solutions / "minigrad", dest / "minigrad",
                    ignore=shutil.ignore_patterns("__pycache__"))
    engine = dest / "minigrad" / "engine.py"
    text = engine.read_text()
    assert old in text
    engine.write_text(text.replace(old, new, 1))
    return dest


def test_unbroadcast_returning_a_list_fails_and_says_why(tmp_path):
    sub = _minigrad_with(tmp_path, "return grad.sum(axis=axes, keepdims=True).reshape(shape)",
                         "return grad.sum(axis=axes, keepdims=True).reshape(shape).tolist()")
    grade, = check_results(load("minigrad"), sub, task=2).grades
    test = next(t for t in grade.tests if t.id == "test_unbroadcast_function")
    assert not test.passed
    assert test.message == ("unbroadcast() returned a list or a float; the contract says it "
                            "returns a float64 ndarray")


def test_an_op_returning_an_ndarray_names_the_op_not_the_test_file(tmp_path):
    sub = _minigrad_with(tmp_path, "out = Tensor(self.data + other.data, _parents=(self, other))",
                         "return self.data + other.data")
    grade, = check_results(load("minigrad"), sub, task=1).grades
    test = next(t for t in grade.tests if t.id == "test_forward_values")
    assert not test.passed
    assert test.message.splitlines()[0] == ("Tensor.__add__() returned an ndarray (float64); "
                                            "the contract says it returns a minigrad Tensor")
    assert "unencodable" not in test.message and "AttributeError" not in test.message


def test_a_wrong_type_in_a_hidden_test_says_only_that_it_failed(toy_env, tmp_path):
    toml = toy_env / "tests" / "toy" / "assignment.toml"
    toml.write_text(toml.read_text() + '\n[returns]\nmean = "float"\norder = "list"\n')
    # a 0-d array: the right value (the comparison passes), not the contract's float
    wrong = SOLUTION.replace("return sum(xs) / len(xs)", "return np.array(sum(xs) / len(xs))")
    wrong = "import numpy as np\n" + wrong.replace(
        "return sorted(range(len(xs)), key=lambda i: xs[i])",
        "return tuple(sorted(range(len(xs)), key=lambda i: xs[i]))")
    grade = grade_root(load("toy", toy_env), submission(tmp_path, wrong))
    by_id = {t.id: t for t in grade.tests}
    assert not by_id["test_order"].passed
    assert by_id["test_order"].message == ("order() returned a tuple; the contract says it "
                                           "returns a list")
    assert not by_id["test_mean"].passed and by_id["test_mean"].message == "Hidden test failed."
    assert by_id["test_add"].passed


@pytest.mark.parametrize("assignment", [a for a in COURSE if a.returns], ids=lambda a: a.name)
def test_every_contract_type_is_read_and_called_by_the_tests(assignment):
    """The reference passes with the checks on, and each function of the table was called by
    some test (a name the tests never reach, or a typo, would check nothing)."""
    assert [check_type(t) for _, t in assignment.returns if check_type(t)] == []
    grade, = check_results(assignment, assignment.solutions).grades
    assert grade.score == grade.max_score, [t.message for t in grade.tests if not t.passed]
    called = {name for rec in grade.run.records.values() for name in rec.returned or {}}
    assert {name for name, _ in assignment.returns} - called == set()

