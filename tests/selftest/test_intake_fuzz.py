"""Fuzzing the intake: whatever zip or folder comes in, `pipeline.grade` returns, results.json
validates, every problem is a clear message (one line; a syntax error adds its source line and
a caret) and what it affects scores zero; never a traceback.

Hypothesis drives raw zips built byte by byte (names with and without the UTF-8 flag, invalid
UTF-8, duplicates, symlink/device modes, directories named like packages, files where folders
belong), then truncates or corrupts them; and folder trees of the same pieces. Derandomized
(the same inputs every run). The sandboxed run is replaced by a stub that passes every test
(intake is what is fuzzed), so an accepted package scores full marks and a rejected one zero.
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
import struct
import tempfile
import zlib
from pathlib import Path

import jsonschema
import pytest
from helpers import grade_results
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.grading import judge as grading
from autograder.grading import pipeline
from autograder.grading.cause_text import sentence
from autograder.grading.report import SCHEMA_PATH
from autograder.sandbox import SandboxPolicy

ZIP_EXAMPLES = 150
FOLDER_EXAMPLES = 60
SOLUTION = (Path(__file__).parent / "toy_course/solutions/toy/__init__.py").read_bytes()
NAMES = [b"toy/", b"toy/__init__.py", b"sub/toy/__init__.py", b"sub/", b"toy", b"toy/__init__.py/",
         b"toy/extra.py", b"toy/conftest.py", b"toy/x.pth", b"pytest/__init__.py", b"toy/numpy.py",
         b"../evil.py", b"/abs.py", b"C:/x.py", b"toy\\__init__.py", b"toy/\xff\xfe.py",
         b"toy/\xc3\x28.py", b"toy/caf\xc3\xa9.py", b"toy/a\x00b.py", b"", b"toy/" + b"d/" * 40 + b"f.py",
         b"toy/" + b"n" * 300 + b".py", b"toy/data.bin", b"sub/sub2/toy/__init__.py"]
CONTENTS = [SOLUTION, b"def add(:\n", b"import statistics\n", b"\x00\x01\x02", b"",
            b"# -*- coding: nope -*-\n", b"x = '\xff'\n", b"(" * 300 + b")" * 300 + b"\n"]
FLAGS = [0, 0x800, 0x1, 0x8]
MODES = [0, 0o100644 << 16, 0o120777 << 16, 0o040755 << 16, 0o010644 << 16, 0o020644 << 16]

names = st.one_of(st.sampled_from(NAMES), st.binary(max_size=24))
contents = st.one_of(st.sampled_from(CONTENTS), st.binary(max_size=64))
entry = st.tuples(names, contents, st.sampled_from(FLAGS), st.sampled_from(MODES))
mutation = st.one_of(st.none(), st.tuples(st.just("truncate"), st.integers(0, 4000)),
                     st.tuples(st.just("poke"), st.integers(0, 4000), st.integers(0, 255)),
                     st.tuples(st.just("append"), st.binary(min_size=1, max_size=64)))


def raw_zip(entries: list[tuple[bytes, bytes, int, int]]) -> bytes:
    """A stored (uncompressed) zip written field by field, so names and flags can be anything."""
    local, central = b"", b""
    for name, data, flags, mode in entries:
        crc, offset = zlib.crc32(data), len(local)
        local += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, flags, 0, 0, 0, crc, len(data),
                             len(data), len(name), 0) + name + data
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x0314, 20, flags, 0, 0, 0, crc,
                               len(data), len(data), len(name), 0, 0, 0, 0, mode, offset) + name
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central),
                      len(local), 0)
    return local + central + end


def mutate(data: bytes, how) -> bytes:
    if how is None:
        return data
    if how[0] == "truncate":
        return data[: how[1] % (len(data) + 1)]
    if how[0] == "poke" and data:
        i = how[1] % len(data)
        return data[:i] + bytes([how[2]]) + data[i + 1:]
    return data + how[1] if how[0] == "append" else data


def passing_run(assignment, impl_root, job):
    """Stands in for pipeline._public_phase (same signature), the stage after intake: every
    test passes (the staged package must exist). What runs is intake, for real."""
    assert (impl_root / assignment.package / "__init__.py").is_file()
    tests = [grading.TestResult(assignment.name, i, t.file, vis, t.points, True, task=t.task)
             for vis, s in grading.task_stores(assignment, job.visibilities, job.task,
                                               job.ids).items()
             for i, t in s.tests.items()]
    return grading.AssignmentGrade(assignment, tests)


@pytest.fixture
def intake_env(toy_course, monkeypatch):
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(toy_course))
    real = inspect.signature(pipeline._public_phase).parameters
    assert list(inspect.signature(passing_run).parameters) == list(real), "stand-in drifted"
    monkeypatch.setattr(pipeline, "_public_phase", passing_run)
    return SandboxPolicy.create("none"), json.loads(SCHEMA_PATH.read_text())


def assert_well_handled(results: pipeline.Results, schema: dict) -> None:
    data = results.gradescope()
    jsonschema.validate(data, schema)
    json.dumps(data)
    for problem in map(sentence, results.problems + [p for g in results.grades for p in g.problems]):
        first, *rest = problem.splitlines() or [""]
        assert first.strip() and "Traceback" not in problem, problem
        assert not rest or first.startswith("SyntaxError in"), problem
    if results.problems:
        assert results.score == 0, results.problems
    for g in results.grades:
        if g.problems:
            assert g.score == 0, g.problems
        for t in g.tests:
            assert "\n" not in t.message, t.message


def grade_bytes(data: bytes, policy) -> pipeline.Results:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "submission.zip"
        path.write_bytes(data)
        return grade_results(path, policy=policy)


def test_fuzzed_zips_always_end_in_results(intake_env):
    policy, schema = intake_env
    tried = []

    @settings(max_examples=ZIP_EXAMPLES, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(entry, max_size=8), mutation)
    def fuzz(entries, how):
        tried.append(1)
        assert_well_handled(grade_bytes(mutate(raw_zip(entries), how), policy), schema)

    fuzz()
    assert len(tried) >= ZIP_EXAMPLES


def test_bad_utf8_name_flagged_utf8_is_a_clear_rejection(intake_env):
    policy, schema = intake_env
    results = grade_bytes(raw_zip([(b"toy/\xff.py", b"x = 1\n", 0x800, 0),
                                   (b"toy/__init__.py", SOLUTION, 0, 0)]), policy)
    assert_well_handled(results, schema)
    assert "not valid UTF-8" in sentence(results.problems[0]) and results.score == 0


def test_huge_entry_count_and_duplicates(intake_env):
    policy, schema = intake_env
    many = [(f"toy/m{i}.py".encode(), b"", 0, 0) for i in range(2100)]
    results = grade_bytes(raw_zip(many), policy)
    assert_well_handled(results, schema)
    assert "entries (limit" in sentence(results.problems[0])
    twice = [(b"toy/__init__.py", b"def add(:\n", 0, 0), (b"toy/__init__.py", SOLUTION, 0, 0)]
    results = grade_bytes(raw_zip(twice), policy)
    assert_well_handled(results, schema)


PIECES = ["toy", "sub", "pytest", "numpy", "__init__.py", "extra.py", "conftest.py", "x.pth",
          "__pycache__", "d"]


@st.composite
def trees(draw):
    paths = draw(st.lists(st.lists(st.sampled_from(PIECES), min_size=1, max_size=4), max_size=8))
    kinds = draw(st.lists(st.sampled_from(["file", "dir", "symlink"]), min_size=len(paths),
                          max_size=len(paths)))
    bodies = draw(st.lists(contents, min_size=len(paths), max_size=len(paths)))
    return list(zip(paths, kinds, bodies))


def build_tree(root: Path, tree) -> None:
    for parts, kind, body in tree:
        path = root.joinpath(*parts)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if kind == "dir":
                path.mkdir(exist_ok=True)
            elif kind == "symlink":
                os.symlink("/etc/passwd" if body else "..", path)
            else:
                path.write_bytes(body)
        except OSError:
            continue  # a file where a folder is: that path stays as it is


def test_fuzzed_folders_always_end_in_results(intake_env):
    policy, schema = intake_env
    tried = []

    @settings(max_examples=FOLDER_EXAMPLES, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(trees())
    def fuzz(tree):
        tried.append(1)
        root = Path(tempfile.mkdtemp(prefix="fuzz-"))
        try:
            build_tree(root / "submission", tree)
            (root / "submission").mkdir(exist_ok=True)
            assert_well_handled(grade_results(root / "submission", policy=policy), schema)
        finally:
            shutil.rmtree(root, ignore_errors=True)

    fuzz()
    assert len(tried) >= FOLDER_EXAMPLES
