"""The course self-test: every graded test can fail, and the goldens are what solutions/ makes.

For one assignment: solutions score 100 %, the untouched starter 0, every mutant loses points
and its hint fires, the committed goldens match a fresh generation, and the handout's API
table, the starter and the `[returns]` types agree (authoring/contract.py). Each check returns a
list of problems (empty: fine); `make test` runs them through tests/selftest/.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import jsonschema

from ..assignments import VISIBILITIES, Assignment, Visibility
from ..backends.base import Outcome, Placement, Status, TestRecord
from ..grading import pipeline
from ..grading.job import GradeJob, JobMode
from ..grading.judge import AssignmentGrade, judge_run
from ..grading.report import SCHEMA_PATH, print_report, results_json
from ..grading.store import GoldenStore, MutantValues, TestSpec, load_inputs, load_store
from ..grading.tasks import task_of_file
from ..sandbox import SandboxPolicy
from .contract import contract_problems
from .goldens import stale_report
from .mutants import Mutant, load_mutants, materialize
from .origin import describe, origin
from .tolerance import tolerance_problems


def schema_problems(grades: list[AssignmentGrade]) -> list[str]:
    schema = json.loads(SCHEMA_PATH.read_text())
    try:
        jsonschema.validate(results_json(grades, 0.0), schema)
    except jsonschema.ValidationError as e:
        return [f"results.json does not validate: {e.message}"]
    return []


def graded(assignment: Assignment, root: Path, policy: SandboxPolicy | None,
           placement: Placement | None, ids: frozenset[str] | None = None) -> AssignmentGrade:
    """The grade of the package in `root`, graded as a submission is (a draw of its own)."""
    return pipeline.grade(GradeJob(root, assignment.root, JobMode.GRADE, (assignment.name,),
                                   ids=ids, policy=policy or SandboxPolicy.create(),
                                   placement=placement or Placement())).grades[0]


def solutions_problems(assignment: Assignment, policy: SandboxPolicy | None = None,
                       placement: Placement | None = None) -> list[str]:
    grade = graded(assignment, assignment.solutions, policy, placement)
    problems = schema_problems([grade])
    if grade.score != grade.max_score or grade.max_score == 0:
        failed = [f"{t.id}: {t.message}" for t in grade.tests if not t.passed]
        problems.append(f"solutions score {grade.score:g}/{grade.max_score:g}: {failed}")
    return problems


def starter_problems(assignment: Assignment, policy: SandboxPolicy | None = None,
                     placement: Placement | None = None) -> list[str]:
    grade = graded(assignment, assignment.starter, policy, placement)
    problems = schema_problems([grade])
    passed = [t.id for t in grade.tests if t.passed]
    if grade.score != 0:
        problems.append(f"the untouched starter scores {grade.score:g}: {passed}")
    return problems


PROBE_TESTS = 2  # tests a self-test run grades per mutant (more only when these do not catch it)


def mutant_problems(assignment: Assignment, mutant: Mutant,
                    policy: SandboxPolicy | None = None,
                    placement: Placement | None = None) -> list[str]:
    """The mutant, graded for real on a few of the tests the goldens say it fails, must lose
    points there with its hint firing. Losing points on one test is losing points in the full
    suite, so the self-test grades only `probe_tests` (the golden generation ran it on every
    test); when they do not catch it, every test it is recorded to fail is graded, and that
    run's verdict is the answer ('not caught' then means the goldens are stale). The mutant
    runs where submissions do (the host backend by default: warm sandboxed children where
    that path runs here)."""
    probe = probe_tests(assignment, mutant)
    if not probe:
        return [f"mutant {mutant.name}: the goldens record no test it fails (a new mutant? "
                f"run `make goldens ONLY={assignment.name}`)"]
    problems = _graded_mutant_problems(assignment, mutant, probe, policy, placement)
    fails = frozenset(t for vis in VISIBILITIES
                      for t in _stored(assignment, vis, mutant).fails)
    if problems and fails != probe:
        problems = _graded_mutant_problems(assignment, mutant, fails, policy, placement)
    return problems


def probe_tests(assignment: Assignment, mutant: Mutant) -> frozenset[str]:
    """Up to PROBE_TESTS tests, of one visibility, where the goldens hold the mutant's wrong
    values, raise sites or failure tags (where its hint can fire), those with the smallest time limit first; when it has
    values nowhere, every test it is recorded to fail."""
    ranked = []
    for vis in VISIBILITIES:
        store = load_store(assignment, vis)
        stored = _stored(assignment, vis, mutant)
        for test_id in {*stored.values, *stored.raises, *stored.tags}:
            limit = store.tests[test_id].timeout or assignment.test_timeout
            ranked.append((limit, vis != Visibility.PUBLIC, test_id, vis))
    if not ranked:
        return frozenset(t for vis in VISIBILITIES for t in _stored(assignment, vis, mutant).fails)
    ranked.sort()
    first_vis = ranked[0][3]
    return frozenset([r[2] for r in ranked if r[3] == first_vis][:PROBE_TESTS])


def _graded_mutant_problems(assignment: Assignment, mutant: Mutant, ids: frozenset[str],
                            policy: SandboxPolicy | None,
                            placement: Placement | None = None) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        grade = graded(assignment, materialize(assignment, mutant, Path(tmp)), policy,
                       placement, ids)
    if grade.score >= grade.max_score:
        return [f"mutant {mutant.name} is not caught by {sorted(ids)}: full marks there"]
    if not any(mutant.hint in t.hints for t in grade.tests if not t.passed):
        failed = [t.id for t in grade.tests if not t.passed]
        return [f"mutant {mutant.name} is caught by {failed} but its hint never fires"]
    return []


def _stored(assignment: Assignment, visibility: Visibility, mutant: Mutant) -> MutantValues:
    return load_store(assignment, visibility).mutants.get(mutant.name) or MutantValues(
        mutant.name, mutant.hint)


def uncaught_tests(assignment: Assignment) -> list[str]:
    """Graded tests that no mutant fails (per the mutant runs stored with the goldens): such a
    test proves nothing until a classic bug fails it."""
    problems = []
    for vis in VISIBILITIES:
        store = load_store(assignment, vis)
        failed = {t for m in store.mutants.values() for t in m.fails}
        problems += [f"{vis} test {t} is failed by no mutant" for t in store.tests
                     if t not in failed]
    return problems


UNKEPT_VALUE = "<a value too large to keep>"  # replays a mutant's unkept wrong value


def replayed_record(store: GoldenStore, test: TestSpec, mutant: MutantValues) -> TestRecord:
    """What the child would report for `test` run on the mutant, rebuilt from the store: the
    observations it recorded (its stored wrong values, the golden elsewhere) and, where it
    raised, the exception's builtin class. A value too large to store replays as a placeholder
    that fails the golden (hints take it as unknown: it neither confirms nor contradicts)."""
    site = mutant.raises.get(test.id)
    names = site["recorded"] if site else list(test.observations)
    wrong = dict(mutant.values.get(test.id, {}))
    wrong.update({n: UNKEPT_VALUE for n in mutant.unkept.get(test.id, ()) if n not in wrong})
    obs = [{"name": n, "value": wrong.get(n, test.observations[n].expected)} for n in names]
    if site:
        return TestRecord(test.id, Status.ENDED, Outcome.FAILED, f"{site['kind']}: (replayed)",
                          site["kind"], site["kind"], obs)
    return TestRecord(test.id, Status.ENDED, Outcome.PASSED, obs=obs)


def check_text(grade: AssignmentGrade) -> str:
    """What `check` prints for a grade (rich markup stripped, lines unwrapped)."""
    from rich.console import Console

    console = Console(record=True, width=100_000, color_system=None, file=open(os.devnull, "w"))
    print_report([grade], console, timing=False)
    console.file.close()
    return " ".join(console.export_text().split())


def public_hint_problems(assignment: Assignment) -> tuple[list[str], list[str]]:
    """Parent-side, no sandbox run: for every mutant that fails a public test, its hint is in
    the text `check` prints when a student's code does what the mutant's does (replayed_record
    through the grading's own judge, hints and renderer). Returns (problems, the mutants that
    fail hidden tests only). The per-mutant probe runs (mutant_problems) prove that a real run
    reproduces the stored values."""
    store = load_store(assignment, Visibility.PUBLIC)
    inputs = load_inputs(assignment, Visibility.PUBLIC)
    problems, hidden_only = [], []
    hidden = load_store(assignment, Visibility.HIDDEN)
    for mutant in load_mutants(assignment):
        stored = store.mutants.get(mutant.name)
        if stored is None:
            problems.append(f"mutant {mutant.name}: not in the public goldens (run `make goldens "
                            f"ONLY={assignment.name}`)")
            continue
        if not stored.has_raises:
            problems.append(f"mutant {mutant.name}: the goldens predate raise sites (run `make "
                            f"goldens ONLY={assignment.name}`)")
            continue
        failed = [t for t in stored.fails if t in store.tests]
        if not failed:
            if hidden.mutants.get(mutant.name) and hidden.mutants[mutant.name].fails:
                hidden_only.append(mutant.name)
            continue
        if any(set(stored.tags.get(t, {})) - set(stored.values.get(t, {})) for t in failed):
            # a tagged failure whose value was too large to store: a real run recomputes the
            # tag from the student's value and names the mutant on it (test_hints proves the
            # tag path); the replay has no value to recompute it from
            continue
        tests = judge_run(assignment, store, [
            (store.tests[t], inputs.get(t), replayed_record(store, store.tests[t], stored))
            for t in failed])
        text = check_text(AssignmentGrade(assignment, tests))
        if " ".join(mutant.hint.split()) not in text:
            problems.append(f"mutant {mutant.name} fails public {sorted(failed)} but `check` "
                            f"would not name its hint")
    return problems, hidden_only


def hint_problems(assignment: Assignment) -> list[str]:
    """public_hint_problems, with the mutants that fail hidden tests only as problems too."""
    problems, hidden_only = public_hint_problems(assignment)
    return problems + [f"mutant {m} fails hidden tests only: `check` can never name it"
                       for m in hidden_only]


def task_problems(assignment: Assignment) -> list[str]:
    """Every graded test file names its handout task (docs/WRITING_TESTS.md, 'Tasks')."""
    return [f"{f.parent.name}/{f.name}: its docstring's first line must be 'Task N: title'"
            for vis in VISIBILITIES for f in assignment.test_files(vis)
            if task_of_file(f) is None]


def goldens_problems(assignment: Assignment, policy: SandboxPolicy | None = None,
                     replay: bool = True, placement: Placement | None = None) -> list[str]:
    """The committed goldens against a fresh generation from solutions/ (run where
    submissions run, the host backend unless a placement is given)."""
    return [f"stale goldens ({p}); run `make goldens`"
            for p in stale_report(assignment, policy, replay, placement)]


def run_selftest(assignment: Assignment, policy: SandboxPolicy | None = None,
                 placement: Placement | None = None) -> bool:
    """All checks for one assignment, printed; True when all pass. Every run that executes
    code (regeneration, solutions, starter, mutants) goes to the `placement`'s backend
    (default: the host), as `grade --backend` does."""
    checks = [("goldens fresh", lambda: goldens_problems(assignment, policy, True, placement)),
              ("solutions 100%", lambda: solutions_problems(assignment, policy, placement)),
              ("starter 0", lambda: starter_problems(assignment, policy, placement)),
              ("every test failed by a mutant", lambda: uncaught_tests(assignment)),
              ("every test file names its task", lambda: task_problems(assignment)),
              ("handout API and return types", lambda: contract_problems(assignment)),
              ("hints fire in check", lambda: hint_problems(assignment)),
              ("tolerance policy", lambda: tolerance_problems(assignment))]
    checks += [(f"mutant {m.name}", lambda m=m: mutant_problems(assignment, m, policy, placement))
               for m in load_mutants(assignment)]
    made, here = load_store(assignment, Visibility.PUBLIC).origin, origin((policy or SandboxPolicy()).kernels)
    print(f"{assignment.name}: goldens made with {describe(made)}; checked with {describe(here)}")
    ok = True
    for label, check in checks:
        problems = check()
        ok &= not problems
        print(f"{assignment.name}: {label}: " + ("ok" if not problems else "FAIL"))
        for p in problems:
            print(f"    {p}")
    return ok
