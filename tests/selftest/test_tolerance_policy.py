"""The tolerance policy (docs/WRITING_TESTS.md, "Tolerances"): a float result tighter than
float32 level (rtol < 1e-6 and atol below 1e-6 of its scale) names its contract clause."""

import shutil

import pytest

from autograder.assignments import load
from autograder.authoring.tolerance import tolerance_problems, too_tight
from autograder.grading.store import ObservationSpec
from autograder.harness.plaindata import encode

ASSIGNMENTS = ["minigrad", "ad_modes", "bpe", "dedup", "scaling", "ddp", "repro", "fusion"]


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_every_tight_float_observation_names_its_contract(name):
    problems = tolerance_problems(load(name))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("atol, rtol, value, tight", [
    (0.0, 0.0, [1.5, 2.0], True),        # bitwise on a float: needs its clause
    (1e-12, 1e-8, [1.5, -3.0], True),    # float64-level
    (0.0, 1e-6, [1.5, -3.0], False),     # float32-level relative
    (1e-5, 0.0, [1.5, -3.0], False),     # atol sized to the scale (3 x 1e-6)
    (1e-6, 0.0, [1e3, 1.0], True),       # atol too small for values near 1000
    (0.0, 0.0, [1, 2], False),           # integers are exact by nature
    (0.0, 0.0, [float("nan"), 0.0], True),
])
def test_too_tight(atol, rtol, value, tight):
    import numpy as np

    spec = ObservationSpec("close", atol, rtol, None, encode(np.asarray(value)))
    assert too_tight(spec) is tight


def test_a_contract_comment_on_the_recording_call_accepts_it(toy_course, tmp_path):
    root = tmp_path / "course"
    shutil.copytree(toy_course, root)
    test = root / "tests" / "toy" / "public" / "test_basic.py"
    original = test.read_text()
    line = 'rec.close(f"sum[{i}]", toy.add(a, b), atol=1e-12)'
    assert line in original
    assert any("test_add/sum[0]" in p for p in tolerance_problems(load("toy", root)))
    # a mark on another close() (other literal tolerances) does not cover it
    test.write_text(original.replace(line, line + "\n        rec.close('x', 1.0, atol=1e-3)"
                                     "  # contract: SPEC 5.1 exact sums"))
    assert any("test_add/sum[0]" in p for p in tolerance_problems(load("toy", root)))
    test.write_text(original.replace(line, line + "  # contract: SPEC 5.9 sums are exact"))
    assert not any("test_add" in p for p in tolerance_problems(load("toy", root)))
    # the hidden mean (rtol=1e-12) is still flagged: the mark is per recording call
    assert any("test_mean/mean" in p for p in tolerance_problems(load("toy", root)))


def test_a_contract_comment_above_the_call_or_at_its_tolerance_dict_accepts_it(toy_course, tmp_path):
    root = tmp_path / "course"
    shutil.copytree(toy_course, root)
    test = root / "tests" / "toy" / "public" / "test_basic.py"
    original = test.read_text()
    line = 'rec.close(f"sum[{i}]", toy.add(a, b), atol=1e-12)'
    indent = original[:original.index(line)].rsplit("\n", 1)[1]
    # the comment block right above the call
    test.write_text(original.replace(line, "# contract: SPEC 5.9 sums are exact\n" + indent + line))
    assert not any("test_add" in p for p in tolerance_problems(load("toy", root)))
    # a comment separated from the call by code does not count
    test.write_text(original.replace(line, "# contract: SPEC 5.9\n" + indent + "pass\n" + indent + line))
    assert any("test_add/sum[0]" in p for p in tolerance_problems(load("toy", root)))
    # tolerances unpacked from a marked module-level dict
    marked = "EXACT = {'atol': 1e-12}  # contract: SPEC 5.9 sums are exact\n"
    test.write_text(marked + original.replace(line, line.replace("atol=1e-12", "**EXACT")))
    assert not any("test_add" in p for p in tolerance_problems(load("toy", root)))
    # ... but not from an unmarked one, nor from a marked one whose tolerance differs
    test.write_text("EXACT = {'atol': 1e-12}\n" + original.replace(line, line.replace("atol=1e-12", "**EXACT")))
    assert any("test_add/sum[0]" in p for p in tolerance_problems(load("toy", root)))
    test.write_text(marked.replace("1e-12", "1e-3") + original.replace(line, line.replace("atol=1e-12", "**EXACT")))
    assert any("test_add/sum[0]" in p for p in tolerance_problems(load("toy", root)))
