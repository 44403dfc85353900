"""starter/ is what the marked solutions generate (one source per function), for every assignment
present; the generator follows the marker rule exactly and refuses markers that do not pair up."""

import shutil
from pathlib import Path

import pytest

from autograder import cli, markers
from autograder.assignments import discover, load
from autograder.authoring import starter

ASSIGNMENTS = discover()
TOY = Path(__file__).parent / "toy_course"

MARKED = '''"""Module docstring."""

import math


def f(x):
    """Contract of f."""
    ### BEGIN SOLUTION
    y = math.sqrt(x)
    return y
    ### END SOLUTION


class C:
    def g(self):
        ### BEGIN SOLUTION
        return 1
        ### END SOLUTION

    def given(self):
        return 2
'''

STRIPPED = '''"""Module docstring."""

import math


def f(x):
    """Contract of f."""
    raise NotImplementedError


class C:
    def g(self):
        raise NotImplementedError

    def given(self):
        return 2
'''


def test_each_region_becomes_one_raise_at_the_begin_indentation():
    assert markers.strip_solutions(MARKED) == STRIPPED
    assert markers.strip_solutions(STRIPPED) == STRIPPED  # no markers: copied verbatim


@pytest.mark.parametrize("text", [
    "    ### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n    ### END SOLUTION\n",
    "    ### BEGIN SOLUTION\n    x = 1\n",
    "    x = 1\n    ### END SOLUTION\n",
], ids=["nested", "unclosed", "stray-end"])
def test_markers_that_do_not_pair_up_are_refused(text):
    with pytest.raises(markers.MarkerError):
        markers.strip_solutions(text, "f.py")


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.name)
def test_committed_starter_is_what_the_solution_generates(assignment):
    assert starter.stale(assignment) == [], "run `make starter` and commit starter/"


def test_toy_course_starter_is_generated():
    assert starter.stale(load("toy", TOY)) == []


def test_write_copies_unmarked_files_and_check_finds_every_drift(tmp_path, monkeypatch, capsys):
    root = tmp_path / "course"
    shutil.copytree(TOY, root)
    toy = load("toy", root)
    pkg = toy.solutions / "toy"
    (pkg / "data").mkdir()
    (pkg / "data" / "table.bin").write_bytes(b"\x00\xffbytes")
    (pkg / "given.py").write_text("def helper():\n    return 1\n")
    assert sorted(starter.stale(toy)) == ["starter/toy/data/table.bin is missing",
                                          "starter/toy/given.py is missing"]
    starter.write_starter(toy)
    assert starter.stale(toy) == []
    assert (toy.starter / "toy" / "data" / "table.bin").read_bytes() == b"\x00\xffbytes"
    assert (toy.starter / "toy" / "given.py").read_text() == "def helper():\n    return 1\n"
    assert "raise NotImplementedError" in (toy.starter / "toy" / "__init__.py").read_text()

    (toy.starter / "toy" / "given.py").write_text("def helper():\n    return 2\n")
    (toy.starter / "toy" / "extra.py").write_text("")
    (pkg / "data" / "table.bin").unlink()
    assert sorted(starter.stale(toy)) == [
        "starter/toy/data/table.bin has no source in solutions/",
        "starter/toy/extra.py has no source in solutions/",
        "starter/toy/given.py differs from what its solution generates"]
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(root))
    assert cli.main(["starter", "--check"]) == 1
    assert "stale: starter/toy/given.py" in capsys.readouterr().out
    assert cli.main(["starter", "toy"]) == 0
    assert cli.main(["starter", "--check", "toy"]) == 0
    assert not (toy.starter / "toy" / "extra.py").exists()
