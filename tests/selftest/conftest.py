import shutil
from pathlib import Path

import pytest

from autograder.assignments import Assignment, load
from autograder.goldens import generate

collect_ignore = ["toy_course"]
TOY = Path(__file__).parent / "toy_course"


@pytest.fixture(scope="session")
def toy_course(tmp_path_factory) -> Path:
    """A copy of the toy course with freshly generated goldens."""
    root = tmp_path_factory.mktemp("course") / "course"
    shutil.copytree(TOY, root)
    generate(load("toy", root))
    return root


@pytest.fixture
def toy(toy_course) -> Assignment:
    return load("toy", toy_course)
