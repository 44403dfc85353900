"""Gradescope autograder: `python -m autograder gradescope A --out autograder.zip` writes a zip in
Gradescope's layout, and `run_autograder` inside it grades one submission with this engine.

Gradescope unpacks the zip into /autograder/source, runs `setup.sh` there once (as root, when it
builds the image) and, per submission, runs `run_autograder` with the student's files in
/autograder/submission; it reads /autograder/results/results.json. All of run_autograder's paths
hang off one variable, AUTOGRADER_ROOT (default /autograder), so a test can run it against a
local folder that mimics that layout (a relative AUTOGRADER_ROOT is taken from the folder it is
run from); AUTOGRADER_PYTHON names the interpreter (a path, relative paths from that folder too;
default: the venv setup.sh makes, $AUTOGRADER_ROOT/venv/bin/python, else a python3 on PATH that
imports the course's packages, so `AUTOGRADER_ROOT=DIR bash DIR/source/run_autograder` works
from the course's activated venv; with none, or one that is missing or lacks the packages,
results.json is a zero saying so and the script exits 1). README.md's recipe runs it so, and
tests/selftest/test_gradescope_readme.py runs that recipe as printed.

The zip holds what the trusted parent needs, as `audiences.share("gradescope", ...)` says: the
engine that grading needs (no instructor module), the assignment's assignment.toml, checks.py,
common.py, public and hidden tests, inputs and goldens (the hidden store holds the draw
secret), its reference package (solutions/<a>/: each grading's expected values are computed
when it runs, grading/draws.py), and requirements.txt (the course's exact pins). It never
holds the mutants' code (solutions/mutants/*.toml, EQUIVALENT_MUTANTS.md; the goldens keep each
mutant's name, hint and recorded values, for the misconception feedback), other assignments'
solutions, or the instructor scripts (crosscheck_*.py, make_plots.py). The copies of common.py
and the test files that reach the sandboxed child go through the starter rule
(backends/run_folder.py): a `### BEGIN SOLUTION` region (golden-time code) becomes `raise
NotImplementedError`. The student's code runs in the course's own sandbox (`--isolation auto`),
and a sandbox layer that Gradescope's container lacks is written into results.json's `output`.
Gradescope's containers may lack user namespaces (no bubblewrap): setup.sh and every
run_autograder (`lock_down`) make source/ root's alone (0700/0600), so the child, dropped to a
uid of its own, can read neither the goldens nor the reference; where it cannot be dropped
either (the grader is not root), the engine refuses the graded tests and says so in
results.json.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import stat
import sys
import tempfile
import tomllib
import traceback
import zipfile
from pathlib import Path, PurePosixPath

from ..assignments import VISIBILITIES, Assignment
from ..atomic import write_atomic
from ..audiences import share
from ..grading.safe_text import utf8_json, visible

ENGINE = Path(__file__).resolve().parent.parent
PYPROJECT = ENGINE.parent / "pyproject.toml"
EXECUTABLE = 0o100755 << 16
REGULAR = 0o100644 << 16
# Gradescope's Ubuntu image has no torch; the CPU wheels keep the image small (PyPI's Linux
# wheels pull the CUDA stack).
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, in /autograder/source, when it builds the image: Python
# 3.11 in a venv with the course's pinned dependencies (requirements.txt), and bubblewrap (the
# sandbox's namespaces layer). Pick an Ubuntu 22.04 base image (python3.11 is in its archive).
set -euo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq python3.11 python3.11-venv bubblewrap
python3.11 -m venv "$ROOT/venv"
"$ROOT/venv/bin/python" -m pip install --quiet --upgrade pip
"$ROOT/venv/bin/python" -m pip install --quiet --extra-index-url {torch_index} \\
    -r "$ROOT/source/requirements.txt"
cd "$ROOT/source" && "$ROOT/venv/bin/python" -c "import torch, autograder.grading.pipeline"
# the engine, tests and goldens: root's alone (the sandboxed child runs as another uid and
# must not read them where bubblewrap is unavailable); the venv: readable by every user
chown -R root:root "$ROOT/source"
chmod -R go-rwx "$ROOT/source"
chmod -R a+rX "$ROOT/venv"
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this per submission (as /autograder/run_autograder, a copy of this file): the
# engine in source/ grades submission/ into results/results.json ({assignment}, sandbox auto).
# The interpreter: AUTOGRADER_PYTHON if set (a path, relative to the folder this is run from,
# or a command name), else the venv setup.sh makes ($ROOT/venv), else the first
# python3.11/python3 on PATH that imports the course's packages (a local run). Whatever fails
# before the engine starts still writes a results.json: a zero with the reason.
set -euo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
case "$ROOT" in /*) ;; *) ROOT="$PWD/$ROOT" ;; esac
fail() {{  # a zero results.json saying why, one line on stderr, exit 1
    mkdir -p "$ROOT/results"
    local why="$1"  # JSON-safe: no backslash, no quote, no control character
    why="${{why//\\\\/}}"
    why="${{why//\\"/}}"
    why="${{why//[[:cntrl:]]/ }}"
    printf '{{"score": 0.0, "execution_time": 0.0, "output": "the autograder could not start: %s", %s}}\\n' \\
        "$why" '"visibility": "visible", "stdout_visibility": "hidden", "tests": []' \\
        > "$ROOT/results/results.json"
    echo "run_autograder: $why" >&2
    exit 1
}}
usable() {{ "$1" -c "import torch, rich, numpy" >/dev/null 2>&1; }}
PYTHON="${{AUTOGRADER_PYTHON:-}}"
if [ -n "$PYTHON" ]; then
    case "$PYTHON" in
        */*) case "$PYTHON" in /*) ;; *) PYTHON="$PWD/$PYTHON" ;; esac ;;
        *) PYTHON="$(command -v "$PYTHON" || echo "$PYTHON")" ;;
    esac
    [ -x "$PYTHON" ] || fail "AUTOGRADER_PYTHON=$AUTOGRADER_PYTHON: no such interpreter"
    usable "$PYTHON" || \\
        fail "AUTOGRADER_PYTHON=$AUTOGRADER_PYTHON lacks the course's packages (run setup.sh)"
elif [ -x "$ROOT/venv/bin/python" ]; then
    PYTHON="$ROOT/venv/bin/python"
else
    for candidate in python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1 && usable "$candidate"; then
            PYTHON="$(command -v "$candidate")"; break
        fi
    done
    [ -n "$PYTHON" ] || fail "no Python with the course's packages: run setup.sh (it makes \\
the venv) or set AUTOGRADER_PYTHON (looked for $ROOT/venv/bin/python, python3.11, python3)"
fi
cd "$ROOT/source"
export TRAINING_SYSTEMS_ROOT="$ROOT/source"
export PYTHONPATH="$ROOT/source"
exec "$PYTHON" -m autograder.integrations.gradescope --root "$ROOT" --assignment {assignment}
"""


class ExportError(Exception):
    """The autograder zip cannot be built (one line for the user)."""


def requirements(pyproject: Path = PYPROJECT) -> str:
    """requirements.txt: the course's runtime dependencies, exactly as pinned in pyproject."""
    deps = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    loose = [d for d in deps if "==" not in d]
    if loose:
        raise ExportError(f"{pyproject}: dependencies not pinned exactly: {', '.join(loose)}")
    return "".join(f"{d}\n" for d in deps)


def _tree(folder: Path, prefix: PurePosixPath, assignment: str) -> dict[str, bytes]:
    """The files under folder (course path prefix/...) that the Gradescope grader receives, as
    `audiences.share` says (whole: the child's run folder stubs its own copies)."""
    return {str(name): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
            and share("gradescope", name := prefix / p.relative_to(folder).as_posix(),
                      assignment) is not None}


def zip_contents(assignment: Assignment) -> dict[str, bytes]:
    """{path in the zip: content}: scripts, requirements, engine, the assignment's tests and
    goldens, its reference package. Raises ExportError when the goldens are missing."""
    for vis in VISIBILITIES:
        if not assignment.goldens_path(vis).exists():
            raise ExportError(f"{assignment.name}: no {vis} goldens at "
                              f"{assignment.goldens_path(vis)} (run `python -m autograder "
                              f"goldens {assignment.name}` first)")
    files = {"setup.sh": SETUP_SH.format(torch_index=TORCH_INDEX).encode(),
             "run_autograder": RUN_AUTOGRADER.format(assignment=assignment.name).encode(),
             "requirements.txt": requirements().encode()}
    files |= _tree(ENGINE, PurePosixPath("autograder"), assignment.name)
    files |= _tree(assignment.tests_dir, PurePosixPath("tests") / assignment.name,
                   assignment.name)
    files |= _tree(assignment.solutions / assignment.package,
                   PurePosixPath("solutions") / assignment.package, assignment.name)
    return files


def build_zip(assignment: Assignment, out: Path) -> Path:
    """Write the Gradescope autograder zip for `assignment` to `out` (atomically)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in sorted(zip_contents(assignment).items()):
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = EXECUTABLE if name in ("setup.sh", "run_autograder") else REGULAR
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, buffer.getvalue())
    return out


def failed_results(message: str) -> dict:
    """results.json for a run that could not grade at all: zero, and the reason in one line."""
    return {"score": 0.0, "execution_time": 0.0, "output": message, "visibility": "visible",
            "stdout_visibility": "hidden", "tests": []}


def lock_down(root: Path) -> list[str]:
    """Before grading: root/source (engine, tests, goldens) readable by its owner only (dirs
    0700, files 0600, executables 0700; owned by root when we are root) and root/results not
    writable by others, so that a child running as another uid, without bubblewrap, can
    neither read the goldens nor write results.json. Returns the problems (paths it could not
    fix); the grader then refuses hidden tests by itself if the goldens stay readable."""
    problems = []
    as_root = os.geteuid() == 0
    source = root / "source"
    for path in [source, *source.rglob("*")] if source.is_dir() else []:
        try:
            st = path.lstat()
            if stat.S_ISLNK(st.st_mode):
                continue
            if as_root and (st.st_uid, st.st_gid) != (0, 0):
                os.chown(path, 0, 0, follow_symlinks=False)
            executable = stat.S_ISDIR(st.st_mode) or st.st_mode & 0o100
            os.chmod(path, 0o700 if executable else 0o600)
        except OSError as e:
            problems.append(f"{path}: {e.strerror}")
    results = root / "results"
    try:
        results.mkdir(parents=True, exist_ok=True)
        if as_root:
            os.chown(results, 0, 0, follow_symlinks=False)
        os.chmod(results, 0o755)
    except OSError as e:
        problems.append(f"{results}: {e.strerror}")
    return problems


def _too_big_or_odd(folder: str, names: list[str]) -> set[str]:
    """What the scratch copy leaves out: entries that are neither folders, regular files nor
    links (FIFOs, devices: a read would block or lie) and files larger than a whole zip may
    unpack to (intake.MAX_ZIP_TOTAL): a huge submission never fills the grader's disk."""
    from ..grading.intake import MAX_ZIP_TOTAL

    skipped = set()
    for name in names:
        try:
            st = os.lstat(os.path.join(folder, name))
        except OSError:
            skipped.add(name)
            continue
        if not (stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode)
                or (stat.S_ISREG(st.st_mode) and st.st_size <= MAX_ZIP_TOTAL)):
            skipped.add(name)
    return skipped


def grade_in(root: Path, assignment: str) -> dict:
    """Grade root/submission (copied to a scratch folder first) for `assignment` with the
    course's sandbox in auto mode; the isolation warnings go into the output."""
    from ..assignments import course_root
    from ..grading import pipeline
    from ..grading.job import GradeJob, JobMode
    from ..sandbox import IsolationMode, SandboxPolicy

    policy = SandboxPolicy.create(IsolationMode.AUTO)
    with tempfile.TemporaryDirectory(prefix="gradescope-") as scratch:
        submission = Path(scratch) / "submission"
        if (root / "submission").is_dir():
            shutil.copytree(root / "submission", submission, symlinks=True,
                            ignore=_too_big_or_odd)
        else:  # nothing submitted: graded as an empty submission (zero, with the max score)
            submission.mkdir()
        return pipeline.grade(GradeJob(submission, course_root(), JobMode.GRADE, (assignment,),
                                       policy=policy)).gradescope()


def run(root: Path, assignment: str) -> int:
    """run_autograder's body: always writes root/results/results.json."""
    for problem in lock_down(root)[:5]:
        print(f"warning: cannot protect {visible(problem)}", file=sys.stderr)
    try:
        results = grade_in(root, assignment)
    except Exception as e:  # Gradescope shows nothing useful for a missing results.json
        traceback.print_exc()
        results = failed_results(f"the autograder could not grade this submission: "
                                 f"{type(e).__name__}: {e}")
    (root / "results").mkdir(parents=True, exist_ok=True)
    write_atomic(root / "results" / "results.json", utf8_json(results) + b"\n")
    print(f"engine: {ENGINE}\nscore {results['score']:g} / {results.get('max_score', 0):g}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.integrations.gradescope",
                                     description="run_autograder's body (see the module doc)")
    parser.add_argument("--root", required=True, help="Gradescope's /autograder")
    parser.add_argument("--assignment", required=True)
    args = parser.parse_args(argv)
    return run(Path(args.root), args.assignment)


if __name__ == "__main__":
    sys.exit(main())
