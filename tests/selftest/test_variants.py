"""Independent correct implementations must get full marks (grading accuracy).

Each folder tests/selftest/variants/<assignment>/<variant>/ holds files that replace the same
files of solutions/<package>/: implementations written from the published contract (handout and
starter docstrings) that make the choices the contract leaves free differently from the
reference — torch's own `optimizer.zero_grad(set_to_none=True)`, a ValueError subclass, a list
iterator instead of a generator, numpy integers, zeros instead of None, another hash family, a
larger streaming buffer... Every variant is graded as a full submission (public and hidden
tests), under its assignment's kernel variant (helpers.variant_policy: as another machine
rounds), and must score 100 %: a test that leans on the reference's incidental behaviour fails
here. New assignments add their variants as folders; nothing is registered.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import grade_root, variant_policy

from autograder.assignments import discover
from autograder.grading.cause_text import sentence

VARIANTS_DIR = Path(__file__).resolve().parent / "variants"
ASSIGNMENTS = {a.name: a for a in discover()}


def variants() -> list[tuple[str, Path]]:
    """(assignment name, variant folder) for every variant folder present."""
    return [(a.name, v) for a in sorted(VARIANTS_DIR.iterdir()) if a.is_dir()
            for v in sorted(a.iterdir()) if v.is_dir() and not v.name.startswith((".", "_"))]


def assemble(assignment, variant: Path, dest: Path) -> Path:
    """A submission folder: solutions/<package>/ with the variant's files laid over it."""
    package = dest / assignment.package
    shutil.copytree(assignment.solutions / assignment.package, package,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for path in sorted(variant.rglob("*.py")):
        target = package / path.relative_to(variant)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return dest


def lost_points(grade) -> list[str]:
    """One line per test the grade lost points on."""
    return [f"{t.visibility}/{t.id} ({t.max_points:g} points): {t.message[:300]}"
            for t in grade.tests if not t.passed] + [sentence(p) for p in grade.problems]


VARIANTS = variants()


def test_variants_exist_for_assignments():
    """Every variant folder names an assignment that exists (a typo would silently skip it)."""
    assert VARIANTS, "no variant under tests/selftest/variants/"
    assert {name for name, _ in VARIANTS} <= set(ASSIGNMENTS)


@pytest.mark.parametrize("name, variant", VARIANTS, ids=[f"{n}-{v.name}" for n, v in VARIANTS])
def test_correct_variant_scores_full_marks(name, variant, tmp_path):
    assignment = ASSIGNMENTS[name]
    grade = grade_root(assignment, assemble(assignment, variant, tmp_path),
                       policy=variant_policy(assignment))
    lost = lost_points(grade)
    assert not lost, f"{variant.name} is correct but lost points:\n" + "\n".join(lost[::-1])
    assert grade.score == grade.max_score > 0
