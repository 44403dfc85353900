"""Oracles cannot be called (autograder/grading/forbidden.py): dotted rules below the top level are
rejected at intake with one line naming the rule (zero for the assignment), stopped at run time
when the name is computed, and allowed parts of the same libraries stay usable."""

import ast
import shutil
from pathlib import Path

import pytest
from helpers import grade_root

from autograder.assignments import load
from autograder.grading.cause_text import sentence
from autograder.grading.forbidden import deciding_rule, forbidden_uses

RULES = ("torch.func", "torch.autograd.functional", "transformers.models",
         "!transformers.models.llama", "scipy.stats.ttest_ind", "tiktoken")


@pytest.mark.parametrize("source, name, rule", [
    ("import torch.func", "torch.func", "torch.func"),
    ("from torch.autograd.functional import jacobian", "torch.autograd.functional",
     "torch.autograd.functional"),
    ("from torch.autograd import functional", "torch.autograd.functional",
     "torch.autograd.functional"),
    ("import torch as t\nt.autograd.functional.jacobian(f, x)", "torch.autograd.functional",
     "torch.autograd.functional"),
    ("import torch\ngetattr(torch, 'func').jacrev(f)", "torch.func", "torch.func"),
    ("import torch\ngetattr(getattr(torch, 'autograd'), 'functional')",
     "torch.autograd.functional", "torch.autograd.functional"),
    ("from torch import autograd as ag\nag.functional.jvp", "torch.autograd.functional",
     "torch.autograd.functional"),
    ("import importlib\nimportlib.import_module('transformers.models.clip')",
     "transformers.models.clip", "transformers.models"),
    ("__import__('tiktoken.core')", "tiktoken.core", "tiktoken"),
    ("from scipy import stats as st\nst.ttest_ind(a, b, equal_var=False)",
     "scipy.stats.ttest_ind", "scipy.stats.ttest_ind"),
    ("from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import smart_resize",
     "transformers.models.qwen2_vl.image_processing_pil_qwen2_vl", "transformers.models"),
])
def test_forbidden_uses_are_found(source, name, rule):
    verb = "imports" if "import" in source.splitlines()[-1] else "uses"
    assert forbidden_uses(ast.parse(source), RULES) == [(name, rule, source.count("\n") + 1,
                                                         verb)]


@pytest.mark.parametrize("source", [
    "import torch\ntorch.functional.norm(x)",          # torch.functional is not torch.func
    "import torch\ntorch.autograd.grad(y, x)",
    "import torch\nclass R(torch.autograd.Function): pass",
    "from scipy import stats\nstats.t.ppf(0.975, 4)",
    "from transformers.models.llama.modeling_llama import LlamaDecoderLayer",
    "import transformers.models\nimport transformers\ntransformers.GPT2Config",
    "from .func import jacrev\nfunc = 3\nfunc.real",      # the student's own names
    "x = 'torch.func'  # a string is not a use",
])
def test_allowed_parts_of_the_same_libraries_are_not_flagged(source):
    assert forbidden_uses(ast.parse(source), RULES) == []


def test_the_longest_rule_decides():
    assert deciding_rule(RULES, "transformers.models.llama.modeling_llama") is None
    assert deciding_rule(RULES, "transformers.models.llamafile") == "transformers.models"
    assert deciding_rule(RULES, "transformers.models") is None  # on the way to llama
    assert deciding_rule(("a.b", "!a.b.c", "a.b.c.d"), "a.b.c.d.e") == "a.b.c.d"


# per assignment: one oracle the task asks the student to rebuild, called as a student would,
# and an allowed part of the same library
ORACLES = {
    "minigrad": ("import torch\ndef f(x):\n    return torch.tensor(x)\n", "import numpy\n"),
    "ad_modes": ("import torch\ndef jac(f, x):\n    return torch.autograd.functional."
                 "jacobian(f, x)\n",
                 "import torch\nclass R(torch.autograd.Function):\n    pass\n"
                 "y = torch.round(torch.zeros(2))\n"),
    "bpe": ("from transformers import GPT2Tokenizer\n", "import regex\n"),
    "dedup": ("from datasketch import MinHash\n", "from scipy.integrate import quad\n"),
    "ddp": ("import torch.utils.data as tud\ns = getattr(tud, 'DistributedSampler')\n",
            "from torch.utils.data import Dataset\nimport torch.distributed as dist\n"),
    "repro": ("from scipy import stats\ndef w(a, b):\n    return stats.ttest_ind(a, b, "
              "equal_var=False)\n", "from scipy import stats\nq = stats.t.ppf(0.975, 4)\n"),
    "fusion": ("from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import "
               "smart_resize\n",
               "from transformers.models.llama.modeling_llama import LlamaDecoderLayer\n"
               "from transformers.models.gpt2 import modeling_gpt2\nimport transformers\n"
               "c = transformers.GPT2Config\n"),
}


def with_module(assignment, tmp_path: Path, source: str) -> Path:
    root = tmp_path / "sub"
    shutil.copytree(assignment.solutions / assignment.package, root / assignment.package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / assignment.package / "extra.py").write_text(source)
    return root


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_calling_the_oracle_zeroes_the_assignment_with_one_line(name, tmp_path):
    assignment = load(name)
    grade = grade_root(assignment, with_module(assignment, tmp_path,
                                                          ORACLES[name][0]))
    assert grade.score == 0 and grade.max_score > 0
    problems = [sentence(p) for p in grade.problems]
    assert len(problems) == 1 and "\n" not in problems[0]
    assert f"{assignment.package}/extra.py, line" in problems[0]
    assert "which this assignment forbids" in problems[0]


def every_rule():
    from autograder.assignments import discover

    return [(a.name, r) for a in discover() for r in a.forbidden if not r.startswith("!")]


@pytest.mark.parametrize("name, rule", every_rule())
def test_every_rule_is_enforced_at_intake(name, rule, tmp_path):
    """Each assignment's every rule, reached as an attribute chain of its top-level import."""
    assignment = load(name)
    top = rule.partition(".")[0]
    # a rule with exceptions below it (transformers.models) leaves the package itself usable
    reached = f"{rule}.clip" if any(r.startswith(f"!{rule}.") for r in assignment.forbidden) \
        else rule
    source = f"import {top}\n" if top == rule else f"import {top}\nx = {reached}\n"
    grade = grade_root(assignment, with_module(assignment, tmp_path, source))
    assert grade.score == 0 and len(grade.problems) == 1
    problem = sentence(grade.problems[0])
    assert f"'{rule}'" in problem and "forbids" in problem


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_allowed_parts_pass_intake(name, tmp_path):
    from autograder.grading.intake import stage

    assignment = load(name)
    root = with_module(assignment, tmp_path, ORACLES[name][1])
    staged = stage(root / assignment.package, assignment, tmp_path / "staged")
    assert staged.problems == []


RESIZE = "test_resize_and_tokens_match_transformers"
COMPUTED = '''
import importlib


def qwen2vl_resize(height, width, min_pixels=56 * 56, max_pixels=28 * 28 * 1280):
    module = importlib.import_module("transformers.models." + "qwen2_vl.image_processing_pil"
                                     + "_qwen2_vl")
    return module.smart_resize(height, width, 28, min_pixels, max_pixels)
'''


def test_a_computed_import_of_the_oracle_is_stopped_at_run_time(tmp_path):
    """Past the static scan (the name is computed), the harness hook stops the student's own
    import: the test fails, and no value of the oracle is recorded (this test records each
    size's outcome, so the ImportError is what it records)."""
    assignment = load("fusion")
    root = with_module(assignment, tmp_path, COMPUTED)
    init = root / "fusion" / "__init__.py"
    init.write_text(init.read_text() + "\nfrom .extra import qwen2vl_resize  # noqa\n")
    grade = grade_root(assignment, root, visibilities=("public",),
                                  ids=frozenset({RESIZE}))
    (test,) = grade.tests
    assert not test.passed
    assert "got 'ImportError'" in test.message and "[728, 1316]" not in test.message.split(
        "gives")[0]


def test_allowed_parts_work_at_run_time(tmp_path):
    """The same library's allowed parts, imported by the student's package, grade as before."""
    assignment = load("fusion")
    root = with_module(assignment, tmp_path, ORACLES["fusion"][1])
    init = root / "fusion" / "__init__.py"
    init.write_text(init.read_text() + "\nfrom . import extra  # noqa\n")
    grade = grade_root(assignment, root, visibilities=("public",),
                                  ids=frozenset({RESIZE}))
    assert [t.passed for t in grade.tests] == [True], grade.tests[0].message


STUDENT = '''
import importlib
import torch  # torch loads torch.func itself: allowed
import transformers


def computed():
    return importlib.import_module("transformers.models." + "qwen2_vl")


def lazy():
    return transformers.Qwen2VLConfig  # transformers' lazy __getattr__ imports for the student


def excepted():
    from transformers.models.llama import LlamaConfig
    return LlamaConfig


def __getattr__(name):  # the student's own lazy loader, triggered by the caller
    return importlib.import_module("transformers.models." + "clip")
'''
DRIVER = '''
import sys
from boot import ForbiddenImportBlocker
sys.meta_path.insert(0, ForbiddenImportBlocker(sys.argv[1].split(","), sys.argv[2]))
import student
for name in ("computed", "lazy", "excepted", "sneaky"):
    try:
        getattr(student, name)() if name != "sneaky" else student.sneaky
        print(name, "allowed")
    except ImportError as e:
        print(name, "blocked", "forbidden in this assignment" in str(e))
import transformers.models.qwen2_vl  # the tests' own import (no student frame): allowed
print("test-side allowed")
'''


def test_the_run_time_hook_blocks_what_the_students_code_asks_for(tmp_path):
    import subprocess
    import sys

    impl = tmp_path / "impl"
    impl.mkdir()
    (impl / "student.py").write_text(STUDENT)
    (tmp_path / "driver.py").write_text(DRIVER)
    boot = Path(__file__).resolve().parents[2] / "autograder" / "harness"
    rules = "torch.func,transformers.models,!transformers.models.llama,!transformers.models.auto"
    out = subprocess.run([sys.executable, str(tmp_path / "driver.py"), rules, str(impl)],
                         capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": f"{boot}:{impl}", "HF_HUB_OFFLINE": "1",
                              "PATH": "/usr/bin:/bin"})
    assert out.stdout.split("\n")[:5] == [
        "computed blocked True", "lazy blocked True", "excepted allowed", "sneaky blocked True",
        "test-side allowed"], out.stdout + out.stderr[-2000:]
