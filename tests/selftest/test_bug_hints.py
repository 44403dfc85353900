"""Hints on bugs that are not the mutants: each independent bug of
solutions/bugs/<a>.toml is graded as a full submission (sandboxed, public and hidden tests, under
its assignment's kernel variant: helpers.variant_policy); the hints shown are reported, and a
hint that names a mistake the bug does not make (a mutant not in its `true_hints`) fails the
test. Target: 0 misleading hints.

Grading the 44 bugs takes about 15 minutes here, so `make test` grades a fixed sample: the first bug
of each assignment. `BUG_HINTS=all` grades every bug (`BUG_HINTS=all .venv/bin/python -m pytest
-q -s tests/selftest/test_bug_hints.py` prints the table), `BUG_HINTS=<assignment>` one
assignment's."""

import os
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import grade_root, variant_policy

from autograder.assignments import Assignment, load
from autograder.authoring.mutants import Mutant, load_mutants, materialize

ASSIGNMENTS = ["minigrad", "ad_modes", "bpe", "dedup", "scaling", "ddp", "repro", "fusion"]


@dataclass(frozen=True)
class Bug:
    """An independent bug of solutions/bugs/<a>.toml (`[[bugs]]` with `name`, `description`,
    `true_hints` and `[[bugs.edits]]`, the mutants' edit format): its edits (`as_mutant`, for
    materialize), what it does and the mutants whose hints are true of it (mutant names)."""

    name: str
    description: str
    true_hints: tuple[str, ...]
    edits: tuple[tuple[str, str, str], ...]

    def as_mutant(self) -> Mutant:
        return Mutant(self.name, self.description, self.edits)


def load_bugs(assignment: Assignment) -> list[Bug]:
    """The assignment's independent bugs, beside solutions/mutants/ (none without a file)."""
    path = assignment.mutants_file.parent.parent / "bugs" / assignment.mutants_file.name
    if not path.exists():
        return []
    bugs = []
    for b in tomllib.loads(path.read_text(encoding="utf-8")).get("bugs", []):
        edits = tuple((e["file"], e["old"], e["new"]) for e in b.get("edits", []))
        assert edits, f"{path}: bug {b['name']} has no edits"
        bugs.append(Bug(b["name"], b["description"].strip(), tuple(b.get("true_hints", ())),
                        edits))
    return bugs


def _selected() -> list[tuple[str, str]]:
    """(assignment, bug name) pairs this run grades (BUG_HINTS: unset, "all" or a name)."""
    which = os.environ.get("BUG_HINTS", "")
    pairs = []
    for name in ASSIGNMENTS:
        bugs = load_bugs(load(name))
        if which == "all" or which == name:
            pairs += [(name, b.name) for b in bugs]
        elif not which and bugs:
            pairs.append((name, bugs[0].name))
    return pairs


def graded_hints(name: str, bug_name: str) -> tuple[float, float, dict[str, list[str]]]:
    """(score, max score, {test id: hints}) of the bug graded as a submission."""
    assignment = load(name)
    bug = next(b for b in load_bugs(assignment) if b.name == bug_name)
    with tempfile.TemporaryDirectory() as tmp:
        materialize(assignment, bug.as_mutant(), Path(tmp))
        grade = grade_root(assignment, Path(tmp), policy=variant_policy(assignment))
    return grade.score, grade.max_score, {t.id: t.hints for t in grade.tests if t.hints}


@pytest.mark.parametrize(("name", "bug_name"), _selected())
def test_no_hint_names_a_mistake_the_bug_does_not_make(name, bug_name):
    assignment = load(name)
    bug = next(b for b in load_bugs(assignment) if b.name == bug_name)
    mutant_of = {m.hint: m.name for m in load_mutants(assignment)}
    score, out_of, hints = graded_hints(name, bug_name)
    named = {mutant_of.get(h, h) for hs in hints.values() for h in hs}
    misleading = sorted(named - set(bug.true_hints))
    print(f"\n{name}/{bug_name}: {score:g}/{out_of:g}; hints: {sorted(named) or 'none'}")
    assert score < out_of, f"{name}/{bug_name} loses no points: it measures nothing"
    assert not misleading, (f"{name}/{bug_name} ({bug.description}) is told "
                            f"{misleading}: " + "; ".join(f"{t}: {hs}" for t, hs in hints.items()))


def test_every_assignment_keeps_five_independent_bugs():
    """At least five per assignment, none the same edit as a mutant, `true_hints` naming
    mutants that exist."""
    for name in ASSIGNMENTS:
        assignment = load(name)
        bugs, mutants = load_bugs(assignment), load_mutants(assignment)
        assert len(bugs) >= 5, name
        edits = {e for m in mutants for e in m.edits}
        assert not [b.name for b in bugs if set(b.edits) & edits], name
        assert {h for b in bugs for h in b.true_hints} <= {m.name for m in mutants}, name
