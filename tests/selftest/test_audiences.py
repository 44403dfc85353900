"""The one table of who sees what (autograder/audiences.py), row by row over the real course's
files: the sandboxed child never sees a golden, a solution, checks.py or the other
visibility's tests; the release never a hidden or instructor file; the Gradescope grader never
a solution, a mutant write-up or another assignment's tests."""

from __future__ import annotations

import subprocess
from pathlib import PurePosixPath

import pytest

from autograder.assignments import course_root
from autograder.audiences import AUDIENCES, STUBBED, WHOLE, share

ROOT = course_root()
pytestmark = pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the course's git checkout")


@pytest.fixture(scope="module")
def tracked() -> list[PurePosixPath]:
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    return [PurePosixPath(n) for n in names]


def _seen(audience: str, files, assignment=None) -> set[str]:
    return {f.as_posix() for f in files if share(audience, f, assignment)}


def test_the_child_sees_only_its_visibility(tracked):
    for vis, other in (("public", "hidden"), ("hidden", "public")):
        seen = _seen(f"child-{vis}", tracked)
        assert "tests/minigrad/common.py" in seen and f"tests/minigrad/inputs/{vis}.json" in seen
        assert "autograder/harness/boot.py" in seen and "autograder/backends/runner.py" not in seen
        assert not [f for f in seen if "/goldens/" in f or f.startswith(("solutions/", "starter/"))
                    or f.endswith("checks.py") or f"/{other}/" in f or f.endswith(f"{other}.json")]
        # the tests' shared code reaches a child through the starter rule (golden-time code)
        assert share(f"child-{vis}", "tests/bpe/common.py") == STUBBED


def test_the_release_holds_no_hidden_or_instructor_file(tracked):
    seen = _seen("release", tracked)
    assert {"tests/minigrad/goldens/public.json", "starter/minigrad/__init__.py",
            "autograder/cli.py", "autograder/grading/local_pytest.py", "tests/conftest.py"} <= seen
    assert not [f for f in seen if "hidden" in f or f.startswith(("solutions/", "docker/",
                "bench/", "examples/", "tests/selftest/")) or "EQUIVALENT_MUTANTS" in f
                or f.endswith(("mutation_report.md", "make_tables.py", "similarity.py",
                               "bulk.py", "/gradescope.py", "nbgrader_course.py"))]
    assert share("release", "tests/dedup/checks.py") == STUBBED
    assert share("release", "tests/dedup/public/test_bloom.py") == STUBBED


def test_gradescope_gets_one_assignment_and_the_grading_engine(tracked):
    seen = _seen("gradescope", tracked, "dedup")
    assert {"tests/dedup/goldens/hidden.json", "tests/dedup/inputs/hidden.json", "tests/dedup/checks.py",
            "solutions/dedup/minhash.py", "autograder/grading/draws.py",
            "autograder/integrations/gradescope.py", "autograder/grading/pipeline.py"} <= seen
    assert share("gradescope", "tests/dedup/checks.py", "dedup") == WHOLE  # the trusted parent's
    # whole: the reference's gen runs need it (the child's run folder stubs its own copy)
    assert share("gradescope", "tests/dedup/common.py", "dedup") == WHOLE
    assert not [f for f in seen if not f.startswith(("autograder/", "tests/dedup/",
                                                     "solutions/dedup/"))
                or "EQUIVALENT_MUTANTS" in f or "crosscheck_" in f or f.endswith("similarity.py")]
    assert share("gradescope", "solutions/mutants/dedup.toml", "dedup") is None
    assert share("gradescope", "solutions/bpe/train.py", "dedup") is None


def test_nbgrader_and_unknown_audiences():
    assert share("nbgrader", "tests/bpe/public/test_text.py", "bpe") == STUBBED
    assert share("nbgrader", "tests/bpe/hidden/test_text.py", "bpe") is None
    assert share("nbgrader", "solutions/bpe/train.py", "bpe") is None
    assert set(AUDIENCES) == {"child-public", "child-hidden", "release", "gradescope", "nbgrader"}
    with pytest.raises(ValueError, match="unknown audience"):
        share("students", "README.md")
