"""The independent cross-checks run on every CI run, so a golden that drifts from its oracle fails.

Every tests/<a>/crosscheck_*.py (found by glob: a new assignment's script joins by existing) is an
instructor script that compares the stored goldens with an independent oracle (torch.autograd,
datasketch, scipy...) and exits non-zero on a disagreement. Here each one runs in a subprocess
with a timeout, with CROSSCHECK_QUICK=1 (a script may then sample its most expensive checks), on
the real goldens (it must pass) and on a copy of its assignment's folder whose goldens are all
perturbed (it must fail: a cross-check that cannot see a drifted golden checks nothing).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted(ROOT.glob("tests/*/crosscheck_*.py"))
TIMEOUT_S = 300  # per run; about 5-20 s each on an idle 2-core machine


def run_crosscheck(script: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "CROSSCHECK_QUICK": "1", "OPENBLAS_NUM_THREADS": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, str(script)], cwd=script.parent, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT_S, check=False)


def tampered(value):
    """Encoded plain data with every number moved (ints + 1, floats * 1.5 + 1), shapes kept."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.5 + 1.0
    if isinstance(value, list):
        return [tampered(v) for v in value]
    if isinstance(value, dict):
        if "__ndarray__" in value:
            body = value["__ndarray__"]
            return {"__ndarray__": {**body, "data": tampered(body["data"])}}
        if value.keys() & {"__float__", "__bytes__", "__unencodable__"}:
            return value
        return {k: tampered(v) for k, v in value.items()}
    return value


def tampered_copy(script: Path, dest: Path) -> Path:
    """The script's assignment folder copied under dest/tests/, every golden's expected value
    tampered; dest/autograder and dest/solutions link to the real ones (the scripts find them
    relative to their own path). Returns the copied script."""
    folder = dest / "tests" / script.parent.name
    shutil.copytree(script.parent, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("autograder", "solutions"):
        (dest / name).symlink_to(ROOT / name, target_is_directory=True)
    for path in (folder / "goldens").glob("*.json"):
        store = json.loads(path.read_text(encoding="utf-8"))
        for test in store["tests"].values():
            for obs in test["observations"].values():
                obs["expected"] = tampered(obs["expected"])
        path.write_text(json.dumps(store), encoding="utf-8")
    return folder / script.name


def _ids(scripts):
    return [f"{s.parent.name}-{s.stem}" for s in scripts]


def test_crosschecks_exist():
    assert SCRIPTS, "no tests/*/crosscheck_*.py found"


@pytest.mark.parametrize("script", SCRIPTS, ids=_ids(SCRIPTS))
def test_goldens_agree_with_independent_oracle(script):
    done = run_crosscheck(script)
    assert done.returncode == 0, (f"{script.relative_to(ROOT)} disagrees with the goldens:\n"
                                  f"{done.stdout[-3000:]}\n{done.stderr[-2000:]}")


@pytest.mark.parametrize("script", SCRIPTS, ids=_ids(SCRIPTS))
def test_crosscheck_fails_on_tampered_goldens(script, tmp_path):
    done = run_crosscheck(tampered_copy(script, tmp_path))
    assert done.returncode != 0, (f"{script.relative_to(ROOT)} passed on tampered goldens: it "
                                  f"cannot detect a drifted golden\n{done.stdout[-2000:]}")
    assert "Traceback" not in done.stderr, f"it crashed instead of reporting:\n{done.stderr[-2000:]}"
