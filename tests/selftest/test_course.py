"""The course self-test, for every assignment present (tests/<a>/assignment.toml):
goldens are what solutions/ produces, solutions score 100 %, the untouched starter 0, and
every mutant loses points with its hint firing.

The goldens' freshness, the full marks and every mutant's hint are checked under kernels
other than this machine's default (helpers.kernel_variants, through the policy's `Kernels`:
sandbox/kernels.py), as another machine would round: the variants rotate over the
assignments in teaching order (helpers.variant_policy), each assignment's checks under one
variant, every variant over several assignments. The goldens may come from any machine (their
origin is reported at the end of the run: conftest.py), so these pass only where every
comparison of float results allows what kernels change (autograder/grading/float_policy.py)."""

import pytest
from helpers import kernel_variants, variant_policy

from autograder.assignments import discover
from autograder.authoring import course_selftest as selftest
from autograder.authoring.mutants import load_mutants

ASSIGNMENTS = discover()
MUTANTS = [(a, m) for a in ASSIGNMENTS for m in load_mutants(a)]
VARIANTS = kernel_variants()
variant = variant_policy


def test_the_course_has_assignments():
    assert ASSIGNMENTS, "no assignment found under tests/*/assignment.toml"


def test_every_variant_covers_several_assignments():
    used = [variant(a).kernels for a in ASSIGNMENTS]
    assert all(used.count(k) >= min(2, len(ASSIGNMENTS) // len(VARIANTS)) for k in VARIANTS)


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.name)
def test_goldens_are_fresh(assignment):
    # the solution replayed against the committed goldens is test_solutions_score_full_marks
    policy = variant(assignment)
    assert selftest.goldens_problems(assignment, policy, replay=False) == [], \
        f"under {policy.kernels.describe()}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.name)
def test_solutions_score_full_marks(assignment):
    policy = variant(assignment)
    assert selftest.solutions_problems(assignment, policy) == [], \
        f"under {policy.kernels.describe()}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.name)
def test_starter_scores_zero(assignment):
    assert selftest.starter_problems(assignment) == []


@pytest.mark.parametrize("assignment, mutant", MUTANTS,
                         ids=[f"{a.name}-{m.name}" for a, m in MUTANTS])
def test_mutant_is_caught_with_its_hint(assignment, mutant):
    policy = variant(assignment)
    assert selftest.mutant_problems(assignment, mutant, policy) == [], \
        f"under {policy.kernels.describe()}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.name)
def test_every_assignment_has_mutants(assignment):
    assert load_mutants(assignment), f"{assignment.name} has no mutants"


def test_bundled_examples_are_current(capsys):
    """`python -m autograder examples --check`: the zips are what the course makes now."""
    from autograder import cli

    assert cli.main(["examples", "--check"]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.name)
def test_every_graded_test_is_failed_by_a_mutant(assignment):
    assert selftest.uncaught_tests(assignment) == []
