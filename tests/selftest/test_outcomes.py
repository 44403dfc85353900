"""Outcomes as types: a test's `Status` and `Outcome`, a run's `RunPath` and `RunMode`
(autograder/backends/base.py), a test's `Visibility` (autograder/assignments.py), the policy's
`IsolationMode` (autograder/sandbox/policy.py) and a job's `JobMode` (grading/job.py) are
StrEnums, set where they happen, compared as members, and written to JSON as their plain
strings (so results.json, instructor.json and every round trip keep their bytes).

An engine module that compares one of their values with a bare string fails here: a literal
with a typo never matches and nothing says so, and a renamed member leaves its literal behind.
The child's side (harness/) is left out: it imports nothing of the engine and writes the
events' plain strings, which backends/run_folder.py decodes into members.

Mutants that fail these tests: `rec.status == "ended"` put back in judge.py; `t.visibility ==
"public"` in report.py; `job.mode == "check"` in pipeline.py; `v in ("public", "hidden")` in
audiences.py; an outcome that is a plain Enum (its JSON no longer its string); run_folder.py
keeping the child's "outcome" string instead of a member.
"""

from __future__ import annotations

import ast
import json
import shutil
from enum import StrEnum
from pathlib import Path

from autograder.assignments import Visibility
from autograder.backends.base import (
    Outcome,
    RunMode,
    RunPath,
    RunRequest,
    RunResult,
    Status,
)
from autograder.backends.base import TestPlan as Plan
from autograder.backends.base import TestRecord as Record
from autograder.backends.causes import Cause, Reason
from autograder.backends.run_folder import ended
from autograder.grading.job import GradeJob, JobMode
from autograder.sandbox import IsolationMode, SandboxPolicy

ENGINE = Path(__file__).resolve().parents[2] / "autograder"
OUTCOMES = (Status, Outcome, RunPath, RunMode, Visibility, IsolationMode, JobMode)
# The values no engine module may compare with as a bare string. JobMode's ("grade",
# "check") are left to the `mode` rule below: "check" is also an observation's kind.
VOCABULARY = {m.value for e in OUTCOMES if e is not JobMode for m in e}


def _strings(node: ast.AST) -> list[str]:
    """The string literals of `node`: itself, or the elements of a tuple, list or set."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [s for element in node.elts for s in _strings(element)]
    return []


def _is_mode(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "mode") or (
        isinstance(node, ast.Name) and node.id == "mode")


def bare_comparisons(engine: Path) -> list[str]:
    """"file:line: comparison" for every comparison (==, !=, in, not in, a match case) in
    `engine` outside harness/ of a VOCABULARY string literal, or of any string literal with a
    `mode`."""
    found = []
    for path in sorted(engine.rglob("*.py")):
        rel = path.relative_to(engine).as_posix()
        if rel.startswith("harness/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                words = [s for operand in operands for s in _strings(operand)]
                if set(words) & VOCABULARY or (words and any(map(_is_mode, operands))):
                    found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
            elif isinstance(node, ast.MatchValue) and set(_strings(node.value)) & VOCABULARY:
                found.append(f"{rel}:{node.lineno}: case {ast.unparse(node.value)}")
    return found


def test_no_engine_module_compares_an_outcome_with_a_bare_string():
    found = bare_comparisons(ENGINE)
    assert not found, "compare with the enum's member instead:\n" + "\n".join(found)


def test_the_scan_finds_bare_comparisons_in_a_copy(tmp_path):
    copy = tmp_path / "autograder"
    shutil.copytree(ENGINE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    judge = copy / "grading" / "judge.py"
    judge.write_text(judge.read_text() + (
        "\n\ndef _bare(rec, t, job, v):\n"
        "    match v:\n"
        "        case 'hidden':\n"
        "            pass\n"
        "    return (rec.status == 'ended', t.visibility != 'public', job.mode == 'check',\n"
        "            v in ('public', 'inputs'), rec.outcome == 'x', t.kind == 'check')\n"))
    found = {line.split(": ", 1)[1] for line in bare_comparisons(copy)}
    assert found == {"rec.status == 'ended'", "t.visibility != 'public'", "job.mode == 'check'",
                     "v in ('public', 'inputs')", "case 'hidden'"}


def test_every_outcome_is_its_plain_string_in_json():
    for enum in OUTCOMES:
        assert issubclass(enum, StrEnum), enum
        for member in enum:
            assert json.dumps({member: [member]}) == json.dumps({member.value: [member.value]})


def test_round_trips_give_members_back(toy):
    """What a remote backend ships and bulk's job files hold come back as members."""
    record = Record("t", "ended", "passed", cause=Reason(Cause.TEST_TIMEOUT, limit=1.0))
    assert (type(record.status), type(record.outcome)) == (Status, Outcome)  # coerced at once
    result = RunResult({"t": record}, [], "", 0, 1.0, "warm")
    back = RunResult.from_json(json.loads(json.dumps(result.to_json())))
    assert back.records["t"].status is Status.ENDED and back.records["t"].outcome is Outcome.PASSED
    assert back.path is RunPath.WARM and back.to_json() == result.to_json()
    assert RunResult.joined([back, RunResult({}, [], "", 0, 0.0)]).path is RunPath.MIXED
    plan = Plan(("t",), {"t": "hidden"}, {})
    request = RunRequest(toy, toy.solutions, "replay", plan, SandboxPolicy(mode="none"))
    again = RunRequest.from_json(json.loads(json.dumps(request.to_json())))
    assert again.mode is RunMode.REPLAY and again.policy.mode is IsolationMode.NONE
    assert again.plan.visibility_of == {"t": Visibility.HIDDEN}
    assert type(again.plan.visibility_of["t"]) is Visibility
    job = GradeJob(toy.solutions, toy.root, "check", (toy.name,), visibilities=("public",))
    rebuilt = GradeJob.from_json(json.loads(json.dumps(job.to_json())))
    assert rebuilt.mode is JobMode.CHECK and rebuilt.visibilities == (Visibility.PUBLIC,)
    assert type(rebuilt.visibilities[0]) is Visibility and rebuilt.key() == job.key()


def test_the_child_s_end_event_becomes_members():
    """run_folder.ended decodes the child's plain strings: its claimed outcome is PASSED only
    when it says exactly "passed"; anything else it sends is FAILED."""
    for claimed, outcome in (("passed", Outcome.PASSED), ("failed", Outcome.FAILED),
                             ("PASSED", Outcome.FAILED), (["passed"], Outcome.FAILED),
                             (None, Outcome.FAILED)):
        record = Record("t")
        ended(record, {"ev": "end", "id": "t", "outcome": claimed}, redact=False)
        assert record.status is Status.ENDED and record.outcome is outcome, claimed
