"""The course self-test: every graded test can fail, and the goldens are what solutions/ makes.

For one assignment: solutions score 100 %, the untouched starter 0, every mutant loses points
and its hint fires, and the committed goldens match a fresh generation. Each check returns a
list of problems (empty: fine); `make test` runs them through tests/selftest/.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import jsonschema

from .assignments import VISIBILITIES, Assignment
from .goldens import stale_report
from .grading import AssignmentGrade, grade_submission_root
from .mutants import Mutant, load_mutants, materialize
from .report import SCHEMA_PATH, results_json
from .sandbox import SandboxPolicy
from .store import load_store
from .tasks import task_of_file


def schema_problems(grades: list[AssignmentGrade]) -> list[str]:
    schema = json.loads(SCHEMA_PATH.read_text())
    try:
        jsonschema.validate(results_json(grades, 0.0), schema)
    except jsonschema.ValidationError as e:
        return [f"results.json does not validate: {e.message}"]
    return []


def solutions_problems(assignment: Assignment, policy: SandboxPolicy | None = None) -> list[str]:
    grade = grade_submission_root(assignment, assignment.solutions, policy=policy)
    problems = schema_problems([grade])
    if grade.score != grade.max_score or grade.max_score == 0:
        failed = [f"{t.id}: {t.message}" for t in grade.tests if not t.passed]
        problems.append(f"solutions score {grade.score:g}/{grade.max_score:g}: {failed}")
    return problems


def starter_problems(assignment: Assignment, policy: SandboxPolicy | None = None) -> list[str]:
    grade = grade_submission_root(assignment, assignment.starter, policy=policy)
    problems = schema_problems([grade])
    passed = [t.id for t in grade.tests if t.passed]
    if grade.score != 0:
        problems.append(f"the untouched starter scores {grade.score:g}: {passed}")
    return problems


def mutant_problems(assignment: Assignment, mutant: Mutant,
                    policy: SandboxPolicy | None = None) -> list[str]:
    """The mutant, graded on the tests the goldens say it fails (each a real graded run of
    those tests), must lose points there with its hint firing. Failing one test is enough to
    lose points in the full suite, so only those tests are run (the full suite's run is the
    golden generation's); a test it no longer fails shows up here as 'not caught'."""
    fails = frozenset(t for vis in VISIBILITIES
                      for t in _stored_fails(assignment, vis, mutant.name))
    if not fails:
        return [f"mutant {mutant.name}: the goldens record no test it fails (a new mutant? "
                f"run `make goldens ONLY={assignment.name}`)"]
    with tempfile.TemporaryDirectory() as tmp:
        grade = grade_submission_root(assignment, materialize(assignment, mutant, Path(tmp)),
                                      policy=policy, ids=fails)
    problems = []
    if grade.score >= grade.max_score:
        problems.append(f"mutant {mutant.name} is not caught: it scores full marks")
    elif not any(mutant.hint in t.hints for t in grade.tests if not t.passed):
        failed = [t.id for t in grade.tests if not t.passed]
        problems.append(f"mutant {mutant.name} is caught by {failed} but its hint never fires")
    return problems


def _stored_fails(assignment: Assignment, visibility: str, mutant: str) -> tuple[str, ...]:
    stored = load_store(assignment, visibility).mutants.get(mutant)
    return stored.fails if stored is not None else ()


def uncaught_tests(assignment: Assignment) -> list[str]:
    """Graded tests that no mutant fails (per the mutant runs stored with the goldens): such a
    test proves nothing until a classic bug fails it."""
    problems = []
    for vis in ("public", "hidden"):
        store = load_store(assignment, vis)
        failed = {t for m in store.mutants.values() for t in m.fails}
        problems += [f"{vis} test {t} is failed by no mutant" for t in store.tests
                     if t not in failed]
    return problems


def task_problems(assignment: Assignment) -> list[str]:
    """Every graded test file names its handout task (docs/WRITING_TESTS.md, 'Tasks')."""
    return [f"{f.parent.name}/{f.name}: its docstring's first line must be 'Task N: title'"
            for vis in ("public", "hidden") for f in assignment.test_files(vis)
            if task_of_file(f) is None]


def goldens_problems(assignment: Assignment, policy: SandboxPolicy | None = None) -> list[str]:
    return [f"stale goldens ({p}); run `make goldens`" for p in stale_report(assignment, policy)]


def run_selftest(assignment: Assignment, policy: SandboxPolicy | None = None) -> bool:
    """All checks for one assignment, printed; True when all pass."""
    checks = [("goldens fresh", lambda: goldens_problems(assignment, policy)),
              ("solutions 100%", lambda: solutions_problems(assignment, policy)),
              ("starter 0", lambda: starter_problems(assignment, policy)),
              ("every test failed by a mutant", lambda: uncaught_tests(assignment)),
              ("every test file names its task", lambda: task_problems(assignment))]
    checks += [(f"mutant {m.name}", lambda m=m: mutant_problems(assignment, m, policy))
               for m in load_mutants(assignment)]
    ok = True
    for label, check in checks:
        problems = check()
        ok &= not problems
        print(f"{assignment.name}: {label}: " + ("ok" if not problems else "FAIL"))
        for p in problems:
            print(f"    {p}")
    return ok
