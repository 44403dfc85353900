"""The bytecode placed in a run folder (backends/run_bytecode.py): a child's `python -B`
imports the harness and common.py from it, its pytest runs the rewritten test files from it,
and neither ever runs bytecode that does not match the file beside it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from autograder.backends import run_bytecode

MODULE = "def answer():\n    return 41 + 1\n"
TEST = "def helper():\n    return 2\n\n\ndef test_helper():\n    assert helper() == 3\n"
# pytest in a child whose rewriter may not run: what it imports comes from the pyc, or it fails
NO_REWRITE = ("import sys, _pytest.assertion.rewrite as r\n"
              "def refuse(*a, **k):\n    raise SystemExit('rewrote ' + str(a[0]))\n"
              "r._rewrite_test = refuse\n"
              "import pytest\n"
              "sys.exit(pytest.main([sys.argv[1], '-q', '-p', 'no:cacheprovider', '--rootdir',"
              " sys.argv[2], '--import-mode=importlib']))\n")


def child(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-I", "-B", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})


def test_a_module_loads_from_its_placed_pyc_and_never_from_a_stale_one(tmp_path):
    copy = tmp_path / "harnessy.py"
    copy.write_text(MODULE)
    run_bytecode.place(copy, rewritten=False)
    pyc = tmp_path / "__pycache__" / f"harnessy.{sys.implementation.cache_tag}.pyc"
    assert pyc.exists()
    done = child("-v", "-c", "import sys; sys.path.insert(0, '.'); import harnessy; "
                 "print(harnessy.answer())", cwd=tmp_path)
    assert done.stdout.strip() == "42"
    assert f"code object from '{pyc}'" in done.stderr  # read, not compiled
    copy.write_text(MODULE.replace("41 + 1", "41 + 2"))  # the source changes: the pyc is stale
    done = child("-c", "import sys; sys.path.insert(0, '.'); import harnessy; "
                 "print(harnessy.answer())", cwd=tmp_path)
    assert done.stdout.strip() == "43"


def test_pytest_runs_the_placed_rewritten_test_and_never_a_stale_one(tmp_path):
    copy = tmp_path / "test_placed.py"
    copy.write_text(TEST)
    run_bytecode.place(copy, rewritten=True)
    done = child("-c", NO_REWRITE, str(copy), str(tmp_path), cwd=tmp_path)
    assert "rewrote" not in done.stdout + done.stderr
    assert "assert 2 == 3" in done.stdout, done.stdout  # the rewritten assertion's message
    copy.write_text(TEST.replace("return 2", "return 4"))
    done = child("-c", NO_REWRITE, str(copy), str(tmp_path), cwd=tmp_path)
    assert "rewrote" in done.stdout + done.stderr  # stale: pytest rewrites the new source


def test_nothing_is_placed_for_a_file_that_does_not_compile(tmp_path):
    copy = tmp_path / "test_broken.py"
    copy.write_text("def test_(:\n")
    run_bytecode.place(copy, rewritten=True)
    run_bytecode.place(copy, rewritten=False)
    assert not (tmp_path / "__pycache__").exists()
