"""Mutation testing in `make test`: a fixed, seeded sample of cosmic-ray mutants of every
reference solution is graded by the engine, and each must lose points or be listed, with its
reason, in tests/<a>/EQUIVALENT_MUTANTS.md. `make mutation` grades the larger sample behind
tests/mutation_report.md; this sample is a prefix of it (same seed)."""

import json
import shutil

import pytest

from autograder.assignments import course_root, discover, load
from autograder.authoring import mutation_testing as mutation
from autograder.authoring.mutation_testing import run as mutation_run
from autograder.authoring.mutation_testing.accumulate import is_old, merge
from autograder.authoring.mutation_testing.report import (
    previous_summaries,
    render_report,
    report_path,
)

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


# ---- the accumulated report (several runs, several seeds, one sample per assignment) ----------

def test_lower_bound_is_the_exact_one_sided_clopper_pearson_bound():
    # 40 of 40: beta.ppf(0.05, 40, 1) = 0.05 ** (1/40), by hand
    assert mutation.lower_bound(40, 40) == pytest.approx(0.05 ** (1 / 40)) == pytest.approx(0.928, abs=5e-4)
    assert mutation.lower_bound(10, 10) == pytest.approx(0.7411, abs=1e-4)  # "100 % of 10": 74 %
    assert mutation.lower_bound(38, 40) == pytest.approx(0.8508, abs=1e-4)
    assert mutation.lower_bound(0, 5) == 0.0
    assert mutation.lower_bound(0, 0) is None


def test_a_mutant_graded_twice_counts_once_and_the_latest_verdict_wins():
    keys = ["a.py::f: x => y", "a.py::g: x => y"]
    first = merge(None, "toy", keys, {keys[0]: "survived"},
                  {"command": "c0", "seed": 0, "sample": 1, "date": "2026-01-01", "seconds": 1})
    again = merge(first, "toy", keys, {keys[0]: "killed", keys[1]: "killed"},
                  {"command": "c1", "seed": 1, "sample": 2, "date": "2026-01-02", "seconds": 2})
    assert again["mutants"][keys[0]] == {"status": "killed", "seed": 1, "date": "2026-01-02"}
    f = mutation.figures(again)
    assert (f["graded"], f["killed"], f["survived"], f["seconds"]) == (2, 2, 0, 3)
    assert [r["command"] for r in again["runs"]] == ["c0", "c1"]
    gone = merge(again, "toy", keys[1:], {}, {"command": "c2", "seed": 2, "sample": 0,
                                              "date": None, "seconds": 0})
    assert list(gone["mutants"]) == keys[1:] and gone["dropped"] == keys[:1]


@pytest.fixture
def toy_root(toy_course, tmp_path, monkeypatch):
    root = tmp_path / "course"
    shutil.copytree(toy_course, root)
    monkeypatch.setenv("TRAINING_SYSTEMS_ROOT", str(root))
    return root


def test_runs_with_different_seeds_accumulate_over_a_report_in_the_previous_format(
        toy_root, tmp_path, capsys):
    toy = load("toy", toy_root)
    mutants = mutation.generate(toy)
    seed0 = [m.key for m in mutation.sample(mutants, 2, 0, "toy")]
    seed1 = [m.key for m in mutation.sample(mutants, 2, 1, "toy")]
    report = tmp_path / "report.md"
    old = {"assignment": "toy", "command": "python -m autograder mutation toy --sample 2 --seed 0",
           "equivalent": 0, "generated": len(mutants), "killed": 2, "sampled": 2, "score": 1.0,
           "seconds": 5, "stale_equivalents": [], "survived": 0, "survivors": []}
    report.write_text(f"# old\n\n<!-- mutation-data {json.dumps({'toy': old})} -->\n")
    mutation_run.run_mutation(["toy"], 2, 1, report)
    d = previous_summaries(report)["toy"]
    assert set(d["mutants"]) == set(seed0) | set(seed1)
    assert all(d["mutants"][k]["seed"] == 1 and d["mutants"][k]["date"] for k in seed1)
    assert all(d["mutants"][k] == {"status": "killed", "seed": 0, "date": None}
               for k in set(seed0) - set(seed1))
    assert [r["seed"] for r in d["runs"]] == [0, 1]
    text = report.read_text()
    assert "--sample 2 --seed 0" in text and "--sample 2 --seed 1" in text
    # a stored mutant that is no longer generated is dropped and said; one graded again counts once
    d["mutants"]["__init__.py::gone: x => y"] = {"status": "killed", "seed": 0, "date": None}
    report.with_suffix(".json").write_text(json.dumps({"toy": d}))  # the data beside the report
    capsys.readouterr()
    mutation_run.run_mutation(["toy"], report=report, only=seed1[:1])
    assert "dropped (no longer generated): __init__.py::gone: x => y" in capsys.readouterr().out
    d = previous_summaries(report)["toy"]
    assert set(d["mutants"]) == set(seed0) | set(seed1) and len(d["runs"]) == 3
    assert d["dropped"] == ["__init__.py::gone: x => y"]
    assert "no longer generated" in report.read_text()
    assert "mutation-data" not in report.read_text()  # the Markdown holds no data


def test_committed_report_is_its_datas_rendering():
    """tests/mutation_report.md is what a run renders from tests/mutation_report.json: neither
    is edited by hand (README.md links to the report and holds no copy of its table)."""
    path = report_path(course_root())
    summaries = previous_summaries(path)
    assert summaries and not any(is_old(d) for d in summaries.values()), \
        "tests/mutation_report.md is in the previous format: run `make mutation` once"
    assert render_report(list(summaries.values())) == path.read_text(encoding="utf-8"), \
        "tests/mutation_report.md differs from its data, tests/mutation_report.json"
