"""The deployment variables: the whole of what the engine reads from its environment, each
declared once here with its meaning and its default (Otter-Grader's autograder_config is the
model). Nothing else in the engine reads `os.environ` (tests/selftest/test_settings.py greps
for it); the sandboxed child's harness has its own environment, which the grader writes
(sandbox/run.py's `scrubbed_env`), and no grading input travels in a variable (the
`GradeJob` carries it).

Each is read when it is used, not at import (a test, or a process that sets one before its
first grading, is seen), except AUTOGRADER_SANDBOX_UID_BASE, fixed once per grader process
(sandbox/uids.py). An empty variable counts as unset. Imports nothing of the engine: every
package may use it, the sandbox's too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Setting:
    """One environment variable the engine reads: its `name`, what it sets (`description`,
    the default in words) and the value it has when unset or empty (`default`)."""

    name: str
    description: str
    default: str = ""

    def value(self) -> str:
        """The variable's value now, stripped; the default when it is unset or empty."""
        return os.environ.get(self.name, "").strip() or self.default


COURSE_ROOT = Setting(
    "TRAINING_SYSTEMS_ROOT",
    "the course folder to grade against (its tests/, solutions/, assignments/); default: the "
    "checkout the engine is in. Gradescope's run_autograder sets it to the zip's source/.")
WARM = Setting(
    "TRAINING_SYSTEMS_WARM",
    "0, off, false or no: every graded child starts cold (a fresh sandboxed interpreter) "
    "instead of as a fork of a warm zygote; results are the same, only slower. Default: 1.",
    "1")
SLOT_UID_BASE = Setting(
    "AUTOGRADER_SANDBOX_UID_BASE",
    "the first of the 512 uids a root grader gives its children; default: one of 4096 ranges "
    "above 2100000000, chosen by the grader's PID namespace (set it to keep a container's "
    "range apart from its host's for certain: docs/SECURITY.md, layer 'user').")
DOCKER_HOST = Setting(
    "DOCKER_HOST",
    "the Docker API `--backend docker` talks to (podman's service works: `make docker-serve`); "
    "default: the Docker SDK's default socket.")
DOCKER_IMAGE = Setting(
    "AUTOGRADER_DOCKER_IMAGE",
    "the runner image `--backend docker` starts children in; default: the course's own tag "
    "(backends/docker_calls.py IMAGE, built by `make docker-cpu`).")
CACHE = Setting(
    "AUTOGRADER_CACHE",
    "where the runner image's build cache and saved images live; default: "
    "~/.cache/training-systems.",
    "~/.cache/training-systems")
XDG_CACHE_HOME = Setting(
    "XDG_CACHE_HOME",
    "the base of the children's package views' cache (autograder/views/ under it; "
    "sandbox/view.py); default: ~/.cache.",
    "~/.cache")
LAB_DIR = Setting(
    "AUTOGRADER_LAB_DIR",
    "in an nbgrader notebook's kernel: the notebook's folder, where its lab cells find the "
    "course's tests (set by the course's grading kernel, integrations/nbgrader_kernel.py); "
    "default: the kernel's working folder.")

SETTINGS = (COURSE_ROOT, WARM, SLOT_UID_BASE, DOCKER_HOST, DOCKER_IMAGE, CACHE, XDG_CACHE_HOME,
            LAB_DIR)


def path(setting: Setting) -> Path:
    """A folder setting's value as a path (`~` expanded)."""
    return Path(setting.value()).expanduser()


def inherited_environment(**extra: str) -> dict[str, str]:
    """The grader's whole environment, plus `extra`, for a trusted helper process it starts
    (podman, a Dask worker, a notebook kernel); never for a sandboxed child, whose environment
    is written from scratch (sandbox/run.py's `scrubbed_env`)."""
    return {**os.environ, **extra}
