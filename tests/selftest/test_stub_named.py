"""Every failure names the student function at fault: a stub reached through `rec.raises`, and a
stub that raised in another process (ddp's ranks), are named with their file and line as a
stub raised in the test's own process is."""

from __future__ import annotations

import importlib
import sys

import pytest
from helpers import SOLUTION, grade_root, submission

from autograder.assignments import load
from autograder.backends import timeouts
from autograder.harness import Recorder, student_where
from autograder.harness.plugin import reported_where
from autograder.sandbox import SandboxPolicy


def test_student_where_is_the_deepest_frame_in_the_package(tmp_path, monkeypatch):
    pkg = tmp_path / "stubpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .env import outer\n")
    (pkg / "env.py").write_text("def outer():\n    return Box().inner()\n\n\nclass Box:\n"
                                "    def inner(self):\n        raise NotImplementedError\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("stubpkg")
    try:
        try:
            module.outer()
        except NotImplementedError as e:
            where = student_where(e, str(pkg))
        assert where == {"function": "Box.inner", "file": "stubpkg/env.py", "line": 7}
        assert student_where(ValueError("no traceback"), str(pkg)) is None
    finally:
        for name in [n for n in sys.modules if n.startswith("stubpkg")]:
            del sys.modules[name]


def test_reported_where_takes_only_a_well_formed_claim():
    error = RuntimeError("rank 0: NotImplementedError")
    assert reported_where(error) is None
    error.graded_where = {"function": "f", "file": "ddp/env.py", "line": 3}
    assert reported_where(error) == {"function": "f", "file": "ddp/env.py", "line": 3,
                                     "student": True}
    error.graded_where = {"function": "f", "file": "ddp/env.py", "line": "3"}
    assert reported_where(error) is None


def test_raises_records_an_error_but_lets_a_stub_through():
    rec = Recorder("t")
    rec.raises("bad", int, "x")
    assert rec.observations[0]["value"] == "ValueError"

    def stub():
        raise NotImplementedError

    with pytest.raises(NotImplementedError):
        rec.raises("stub", stub)
    assert len(rec.observations) == 1


def test_a_stub_reached_through_rec_raises_is_named(toy, tmp_path):
    source = SOLUTION.replace('    if not xs:\n        raise ValueError("mean of nothing")',
                              "    raise NotImplementedError")
    assert source != SOLUTION
    grade = grade_root(toy, submission(tmp_path, source), ("public",),
                                  SandboxPolicy.create("none"))
    messages = [t.message for t in grade.tests if t.id == "test_mean_of_nothing"]
    assert messages and "mean() (toy/__init__.py:" in messages[0], messages


def test_a_stub_raised_in_a_ddp_rank_is_named(monkeypatch):
    """ddp's Task 4 runs the student's MiniDDP in rank processes: the starter's stub is named
    (before: "a stub still raises NotImplementedError", no name). What is checked is the
    message, not the limit: the longest one the load may give (the quiet one, 3.4 s for the
    test that starts the ranks, ran out once in a loaded `make test` whose load was low at the
    instant the run froze it)."""
    monkeypatch.setattr(timeouts, "machine_slowdown", lambda: timeouts.MAX_SLOWDOWN)
    ddp = load("ddp")
    grade = grade_root(ddp, ddp.starter, ("public",), SandboxPolicy.create("none"),
                                  task=4)
    messages = {t.id: t.message for t in grade.tests}
    assert "MiniDDP.__init__() (ddp/mini_ddp.py:" in messages["test_broadcast_at_construction"]
    assert "ShardedSampler.__init__() (ddp/sampler.py:" in \
        messages["test_sampler_in_process_group"]
