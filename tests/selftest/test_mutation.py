"""Mutation testing in `make test`: a fixed, seeded sample of cosmic-ray mutants of every
reference solution is graded by the engine, and each must lose points or be listed, with its
reason, in tests/<a>/EQUIVALENT_MUTANTS.md. `make mutation` grades the larger sample behind
tests/mutation_report.md; this sample is a prefix of it (same seed)."""

import shutil

import pytest

from autograder.assignments import discover, load
from autograder.authoring import mutation_testing as mutation

SAMPLE = 1  # per assignment: keeps this file within ~2 minutes on 2 cores for all of them
SEED = 0


@pytest.mark.parametrize("assignment", discover(), ids=lambda a: a.name)
def test_sampled_mutants_are_killed_or_equivalent(assignment):
    result = mutation.run_assignment(assignment, SAMPLE, SEED)
    assert result.generated > 0, f"no mutant generated from solutions/{assignment.package}/"
    assert result.sampled == min(SAMPLE, result.generated)
    survivors = [o.mutation.key for o in result.outcomes if o.status == "survived"]
    assert survivors == [], ("mutants that keep full marks: add a sharper graded test, or "
                             f"list them in tests/{assignment.name}/{mutation.EQUIVALENT_FILE}")
    assert result.stale_equivalents == [], "listed as equivalent but no longer generated"


@pytest.fixture
def toy_copy(toy_course, tmp_path):
    root = tmp_path / "course"
    shutil.copytree(toy_course, root)
    return load("toy", root)


def test_mutants_are_named_by_file_function_and_line(toy_copy):
    keys = [m.key for m in mutation.generate(toy_copy)]
    assert "__init__.py::add: return a + b => return a - b" in keys
    assert "__init__.py::mean: if not xs: => if xs:" in keys
    assert len(keys) == len(set(keys))


def test_a_smaller_sample_is_a_prefix_of_a_larger_one(toy_copy):
    mutants = mutation.generate(toy_copy)
    assert mutation.sample(mutants, 3, 7, "toy") == mutation.sample(mutants, 5, 7, "toy")[:3]
    assert mutation.sample(mutants, None, 7, "toy") != mutants  # shuffled


def test_killed_survived_and_equivalent(toy_copy):
    by_key = {m.key: m for m in mutation.generate(toy_copy)}
    killed = mutation.grade_mutation(toy_copy, by_key["__init__.py::add: return a + b => "
                                                      "return a - b"])
    assert killed.status == "killed" and killed.where.startswith("public")
    # the message of mean's ValueError is not graded: changing it cannot lose points
    untested = mutation.Mutation("__init__.py::mean: (message)", "__init__.py", "hand",
                                 (toy_copy.solutions / "toy" / "__init__.py").read_text()
                                 .replace("mean of nothing", "nothing to average"))
    assert mutation.grade_mutation(toy_copy, untested).status == "survived"
    listed = [f"- `{key}` reason {i}" for i, key in enumerate(sorted(by_key))]
    (toy_copy.tests_dir / mutation.EQUIVALENT_FILE).write_text(
        "# toy\n\n" + "\n".join(listed) + "\n  on two lines\n"
        "- `__init__.py::gone: x => y` not generated any more\n")
    equivalents = mutation.equivalent_mutants(toy_copy)
    assert equivalents[sorted(by_key)[-1]] == f"reason {len(by_key) - 1} on two lines"
    result = mutation.run_assignment(toy_copy, None, 0)  # all listed: none is graded
    assert result.count("equivalent") == result.sampled == len(by_key)
    assert result.stale_equivalents == ["__init__.py::gone: x => y"]


def test_an_entry_without_a_reason_is_refused(toy_copy):
    (toy_copy.tests_dir / mutation.EQUIVALENT_FILE).write_text("- `a.py::f: x => y`\n")
    with pytest.raises(mutation.MutationError, match="no reason"):
        mutation.equivalent_mutants(toy_copy)
