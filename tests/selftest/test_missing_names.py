"""One missing function costs the tests that use it, not the assignment (SPEC §4: "a zero for
what it affects"). A name the tests import from the package that the package lacks becomes a
placeholder in the child (autograder/harness/missing_names.py): only the tests that use it
fail, each with one line naming it, and a placeholder never earns a point.

Before: `from ddp import (MiniDDP, ...)` in ddp's common.py raised ImportError at collection,
and every test of the assignment failed for one missing name (the same for fusion's
common.py, and for minigrad's test files). With the completer removed from boot.py, the three
graded cases below fail: no test passes and none names the missing function.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import grade_root

from autograder.assignments import load
from autograder.backends import timeouts
from autograder.backends.causes import Cause, Reason
from autograder.backends.run_folder import package_names
from autograder.grading.cause_text import sentence
from autograder.harness.missing_names import MissingName, PackageCompleter, missing_name
from autograder.sandbox import SandboxPolicy


def test_a_placeholder_raises_on_every_use_and_names_itself():
    ghost = MissingName("ddp.MiniDDP")

    def subclass():
        class Mine(ghost):
            pass

    for use in (lambda: ghost(1, x=2), lambda: ghost.no_sync, lambda: isinstance(3, ghost),
                lambda: issubclass(int, ghost), lambda: setattr(ghost, "a", 1), subclass):
        with pytest.raises(NotImplementedError, match=r"^ddp\.MiniDDP is missing from your "
                                                      r"package") as raised:
            use()
        assert missing_name(raised.value) == "ddp.MiniDDP"
    assert getattr(ghost, "_pytestfixturefunction", None) is None  # tools' probes: no error
    assert not hasattr(ghost, "__wrapped__")
    assert missing_name(ValueError("x")) is None


@pytest.fixture
def package_dir(tmp_path, monkeypatch):
    """A folder on sys.path for a package `ghostpkg`, removed from sys.modules afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "ghostpkg").mkdir()
    yield tmp_path / "ghostpkg"
    for name in [n for n in sys.modules if n.split(".")[0] == "ghostpkg"]:
        del sys.modules[name]


def _import_with(names, monkeypatch):
    completer = PackageCompleter({"ghostpkg": names})
    monkeypatch.setattr(sys, "meta_path", [completer, *sys.meta_path])
    importlib.invalidate_caches()
    return importlib.import_module("ghostpkg")


def test_the_completer_binds_only_what_the_package_lacks(package_dir, monkeypatch):
    (package_dir / "__init__.py").write_text("def present():\n    return 1\n")
    (package_dir / "sub.py").write_text("VALUE = 2\n")
    module = _import_with(["present", "absent", "sub"], monkeypatch)
    assert module.present() == 1
    assert isinstance(module.absent, MissingName)
    from ghostpkg import sub  # a submodule of that name is the fromlist's to import

    assert sub.VALUE == 2 and type(module.__loader__).__name__ == "SourceFileLoader"


def test_a_package_that_fails_to_import_fails_as_before(package_dir, monkeypatch):
    (package_dir / "__init__.py").write_text("raise RuntimeError('broken on purpose')\n")
    with pytest.raises(RuntimeError, match="broken on purpose"):
        _import_with(["absent"], monkeypatch)


def test_the_names_are_the_ones_the_tests_import_and_the_contract_has():
    ddp = load("ddp")
    assert package_names(ddp, ("public",)) == [
        "MiniDDP", "ShardedSampler", "dist_env_from", "global_batch_size",
        "join_process_group", "tokens_per_step", "train_step"]
    toy = load("toy", Path(__file__).parent / "toy_course")
    assert package_names(toy, ("public", "hidden")) == ["add", "mean", "order"]  # toy.add


def test_the_sentence_names_the_function_and_where_it_goes():
    assert sentence(Reason(Cause.MISSING_NAME, function="ddp.MiniDDP")) == (
        "ddp.MiniDDP is missing from your package (the tests import it as `from ddp import "
        "MiniDDP`: define it, or import it in ddp/__init__.py)")


def without(tmp_path: Path, name: str, package: str, dropped: str) -> Path:
    """A copy of the reference package whose __init__.py no longer binds `dropped` (its
    __all__ still names it: only `from package import *` reads that)."""
    root = tmp_path / "sub"
    shutil.copytree(load(name).solutions / package, root / package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    init = root / package / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8") + f"\ndel {dropped}\n", encoding="utf-8")
    return root


# (assignment, the name dropped, the public tests graded, the ones that use the name)
CASES = [
    ("minigrad", "unbroadcast", None, {"test_unbroadcast_function"}),
    ("ddp", "MiniDDP",  # common.py imports every name; MiniDDP runs in the ranks' processes
     {"test_reads_torchrun_environment", "test_global_batch_and_tokens",
      "test_broadcast_at_construction"}, {"test_broadcast_at_construction"}),
    ("fusion", "rope_2d", {"test_chair_scores", "test_projector",
                           "test_rope_2d_relative_positions"},
     {"test_rope_2d_relative_positions"}),
]


@pytest.mark.parametrize("name, dropped, ids, using", CASES, ids=[c[0] for c in CASES])
def test_one_missing_function_fails_only_the_tests_that_use_it(tmp_path, monkeypatch, name,
                                                               dropped, ids, using):
    monkeypatch.setattr(timeouts, "machine_slowdown", lambda: timeouts.MAX_SLOWDOWN)
    assignment = load(name)
    root = without(tmp_path, name, assignment.package, dropped)
    grade = grade_root(assignment, root, ("public",), SandboxPolicy.create("none"),
                                  ids=frozenset(ids) if ids else None)
    failed = {t.id: t.message for t in grade.tests if not t.passed}
    assert set(failed) == using, failed
    said = sentence(Reason(Cause.MISSING_NAME, function=f"{assignment.package}.{dropped}"))
    # its first line (ddp's battery also records each rank's raise before raising it again)
    assert all(message.splitlines()[0] == said for message in failed.values()), failed
    assert all(t.passed for t in grade.tests if t.id not in using)


def test_local_pytest_fails_only_the_tests_that_use_it(tmp_path):
    """`autograder test` (plain pytest, grading/local_pytest.py) stands in for the name as the graded
    child does: the file that imports it still collects."""
    minigrad = load("minigrad")
    root = without(tmp_path, "minigrad", minigrad.package, "unbroadcast")
    done = subprocess.run([sys.executable, "-m", "autograder", "test", "minigrad", "--impl",
                           str(root), "-k", "unbroadcast"], capture_output=True, text=True,
                          timeout=300, cwd=minigrad.root)
    assert "1 failed, 2 passed" in done.stdout, done.stdout[-2000:]
    assert "minigrad.unbroadcast is missing from your package" in done.stdout
