"""`make setup` says what it is doing (.ci/setup.sh): a line before each step that takes a
while (installing the packages, writing the bytecode) and one when it is done, with its
seconds; never silent for the minute a first run takes.

Run on a copy of .ci/ with stand-ins for uv and the venv's python (each records its call and
returns at once): the script's own lines, in order, before and after each step. A line must
come before the step it announces: the stand-ins write their call into the same output.

Mutants that fail these tests: setup.sh without its `say` lines (silent, as before); the
bytecode announced after it was written; the bytecode's two parts run one after the other.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _course(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder holding a copy of .ci/, a stand-in .venv/bin/python and a stand-in uv; the
    environment that makes setup.sh use them."""
    course = tmp_path / "course"
    shutil.copytree(ROOT / ".ci", course / ".ci")
    log = tmp_path / "calls"
    python = course / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(  # a bytecode part records its start and end; torch and rest each wait
        # (up to 30 s) until both have started: side by side, they end at once
        "#!/bin/sh\n"
        f'case "$*" in *warm_bytecode.py*) echo "start $*" >> {log}\n'
        f'  case "$*" in *views*) ;; *) for i in $(seq 300); do\n'
        f'    [ "$(grep -c "part torch\\|part rest" {log})" -ge 2 ] && break; sleep 0.1; done;; esac\n'
        f'  echo "end $*" >> {log}; exit 0;; esac\n'
        f'exec {sys.executable} "$@"\n')
    python.chmod(0o755)
    uv_home = tmp_path / "uv-home"
    uv = uv_home / "uv-0.13.9" / "bin" / "uv"
    uv.parent.mkdir(parents=True)
    uv.write_text('#!/bin/sh\n[ "$1" = --version ] && { echo "uv 0.13.9 (stand-in)"; exit 0; }\n'
                  f'echo "uv $*" >> {log}\nexit 0\n')
    uv.chmod(0o755)
    env = {**os.environ, "SETUP_UV_HOME": str(uv_home), "PYTHON": sys.executable}
    return course, env


def test_setup_announces_each_step_and_says_when_it_is_done(tmp_path):
    course, env = _course(tmp_path)
    done = subprocess.run(["bash", ".ci/setup.sh", "dev"], cwd=course, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    said = [ln for ln in done.stdout.splitlines() if ln.startswith("setup: ")]
    assert len(said) == 4, done.stdout
    assert said[0].startswith("setup: installing the pinned packages (.[dev]) into .venv with uv")
    assert said[1].startswith("setup: packages installed (") and said[1].endswith(" s)")
    assert said[2].startswith("setup: writing the bytecode the sandboxed children read")
    assert said[3].startswith("setup: bytecode written (")
    calls = (tmp_path / "calls").read_text().splitlines()
    assert any(c.startswith("uv pip install") for c in calls)
    parts = [c for c in calls if "warm_bytecode.py" in c]
    assert parts[:2] == [c for c in parts if c.startswith("start")][:2]  # side by side
    assert parts[-2:] == ["start .ci/warm_bytecode.py --part views",
                          "end .ci/warm_bytecode.py --part views"]


def test_the_bytecode_step_alone_says_what_it_does(tmp_path):
    course, env = _course(tmp_path)
    for args, what in ((["--bytecode"], "the bytecode the sandboxed children read"),
                       (["--bytecode", "--instructor"], "the instructor tools' bytecode")):
        done = subprocess.run(["bash", ".ci/setup.sh", *args], cwd=course, env=env,
                              capture_output=True, text=True, timeout=120)
        said = [ln for ln in done.stdout.splitlines() if ln.startswith("setup: ")]
        assert done.returncode == 0 and len(said) == 2, done.stdout
        assert said[0].startswith(f"setup: writing {what}") and "bytecode written" in said[1]
