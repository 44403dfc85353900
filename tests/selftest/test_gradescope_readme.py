"""README.md's local Gradescope recipe works exactly as printed: the test reads the commands
between `<!-- gradescope-local:begin -->` and `<!-- gradescope-local:end -->` and runs them
with bash in a folder laid out like this checkout (each top-level entry linked, out/ its own),
as an instructor pastes them into a shell there. They build minigrad's autograder zip, unpack
it and the complete example, and run run_autograder with a relative AUTOGRADER_PYTHON and a
relative AUTOGRADER_ROOT; results.json gives the reference full marks. With an interpreter
that does not exist (the same command, another AUTOGRADER_PYTHON), run_autograder still writes
the zero results.json the README promises and exits 1.

Mutants that fail these tests: run_autograder using AUTOGRADER_PYTHON or AUTOGRADER_ROOT as
given after its `cd` (exit 127, no results.json); the zero results.json written only when no
variable is set; a recipe in the README that no longer runs.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest

from autograder.grading.report import SCHEMA_PATH

ROOT = Path(__file__).resolve().parents[2]
RECIPE = re.compile(r"<!-- gradescope-local:begin -->\n```sh\n(.*?)```\n<!-- gradescope-local:end -->",
                    re.S)
RESULTS = Path("out/gradescope-local/results/results.json")

pytestmark = pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "python").exists(),
                                reason="the recipe runs the course venv's python (make setup)")


def recipe() -> str:
    found = RECIPE.findall((ROOT / "README.md").read_text())
    assert len(found) == 1, "README.md holds one gradescope-local recipe"
    return found[0]


def _checkout(tmp_path: Path) -> Path:
    """A folder laid out like this checkout: every top-level entry but out/ linked to it."""
    course = tmp_path / "course"
    course.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in ("out", ".git"):
            (course / entry.name).symlink_to(entry)
    return course


def _run(script: str, course: Path) -> subprocess.CompletedProcess:
    drop = ("TRAINING_SYSTEMS_ROOT", "AUTOGRADER_PYTHON", "AUTOGRADER_ROOT", "VIRTUAL_ENV",
            "PYTHONPATH")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    return subprocess.run(["bash", "-e", "-c", script], cwd=course, env=env,
                          capture_output=True, text=True, timeout=900,
                          stdin=subprocess.DEVNULL)


def test_the_readme_recipe_runs_as_printed(tmp_path):
    course = _checkout(tmp_path)
    done = _run(recipe(), course)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((course / RESULTS).read_text())
    jsonschema.validate(results, json.loads(SCHEMA_PATH.read_text()))
    assert results["max_score"] > 0 and results["score"] == results["max_score"], results["output"]
    assert {t["extra_data"]["autograder"]["assignment"] for t in results["tests"]} == {"minigrad"}
    assert json.dumps(results["score"]) in done.stdout  # the recipe's last line shows it


def test_a_python_that_does_not_exist_still_writes_a_zero(tmp_path):
    course = _checkout(tmp_path)
    lines = recipe().splitlines()
    (grading,) = [ln for ln in lines if "run_autograder" in ln]
    assert "AUTOGRADER_PYTHON=.venv/bin/python " in grading
    missing = grading.replace("AUTOGRADER_PYTHON=.venv/bin/python ",
                              "AUTOGRADER_PYTHON=.venv/bin/python-missing ")
    done = _run("\n".join(lines[:lines.index(grading)] + [missing]), course)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    said = [ln for ln in done.stderr.splitlines() if ln.startswith("run_autograder:")]
    assert said == ["run_autograder: AUTOGRADER_PYTHON=.venv/bin/python-missing: no such "
                    "interpreter"], done.stderr
    results = json.loads((course / RESULTS).read_text())
    jsonschema.validate(results, json.loads(SCHEMA_PATH.read_text()))
    assert results["score"] == 0 and "python-missing" in results["output"]
