"""The course self-test, for every assignment present (tests/<a>/assignment.toml):
goldens are what solutions/ produces, solutions score 100 %, the untouched starter 0, and
every mutant loses points with its hint firing."""

import pytest

from autograder.assignments import discover
from autograder.authoring import course_selftest as selftest
from autograder.authoring.mutants import load_mutants

ASSIGNMENTS = discover()
MUTANTS = [(a, m) for a in ASSIGNMENTS for m in load_mutants(a)]


def test_the_course_has_assignments():
    assert ASSIGNMENTS, "no assignment found under tests/*/assignment.toml"


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.name)
def test_goldens_are_fresh(assignment):
    # the solution replayed against the committed goldens is test_solutions_score_full_marks
    assert selftest.goldens_problems(assignment, replay=False) == []


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.name)
def test_solutions_score_full_marks(assignment):
    assert selftest.solutions_problems(assignment) == []


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.name)
def test_starter_scores_zero(assignment):
    assert selftest.starter_problems(assignment) == []


@pytest.mark.parametrize("assignment, mutant", MUTANTS,
                         ids=[f"{a.name}-{m.name}" for a, m in MUTANTS])
def test_mutant_is_caught_with_its_hint(assignment, mutant):
    assert selftest.mutant_problems(assignment, mutant) == []


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.name)
def test_every_assignment_has_mutants(assignment):
    assert load_mutants(assignment), f"{assignment.name} has no mutants"


def test_bundled_examples_are_current():
    from autograder.authoring.examples import stale_examples

    assert stale_examples() == [], "run `python -m autograder examples`"


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.name)
def test_every_graded_test_is_failed_by_a_mutant(assignment):
    assert selftest.uncaught_tests(assignment) == []
