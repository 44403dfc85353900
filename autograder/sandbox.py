"""How the graded child process is started: its command line, environment and limits.

This is the one place that decides what the child can see and do. The trusted parent builds a
run folder (see runner.py) and asks `child_command` how to start Python inside it.
"""

from __future__ import annotations

import resource
import sys
from dataclasses import dataclass
from pathlib import Path

FILE_SIZE_LIMIT = 256 * 2**20  # bytes any one file the child writes may reach


@dataclass(frozen=True)
class ChildCommand:
    argv: list[str]
    env: dict[str, str]
    preexec: object  # callable run in the child before exec


def scrubbed_env(run_dir: Path) -> dict[str, str]:
    """The child's whole environment: nothing inherited from the grader."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(run_dir / "work"),
        "TMPDIR": str(run_dir / "tmp"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "HYPOTHESIS_NO_PLUGINS": "1",
    }


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))


def child_command(run_dir: Path, boot: Path, config: Path) -> ChildCommand:
    """`python -I -B boot.py config.json` with a scrubbed environment and resource limits."""
    argv = [sys.executable, "-I", "-B", str(boot), str(config)]
    return ChildCommand(argv=argv, env=scrubbed_env(run_dir), preexec=_limits)
