"""Where an assignment's files live. An assignment exists when tests/<name>/assignment.toml does."""

from __future__ import annotations

import importlib.util
import os
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
ROOT_VARIABLE = "TRAINING_SYSTEMS_ROOT"  # another course folder (the engine's self-tests use one)


def course_root() -> Path:
    return Path(os.environ.get(ROOT_VARIABLE) or ROOT)
VISIBILITIES = ("public", "hidden")
# The public tests' graded input set: inputs drawn from a salted seed the student release never
# ships, with its own goldens (goldens/graded.json, inputs/graded.json). `grade` judges the
# public tests on it; the published inputs (inputs/public.json) serve `check` only.
GRADED_INPUTS = "graded"


class AssignmentError(Exception):
    """An assignment is missing or misconfigured."""


@dataclass(frozen=True)
class Assignment:
    name: str
    package: str
    number: int
    title: str
    forbidden: tuple[str, ...]
    test_timeout: float
    run_timeout: float
    root: Path
    # per-test limits sized from the reference's measured time (autograder/backends/timeouts.py); false:
    # every test keeps its explicit or default limit
    measured_timeouts: bool = True

    @property
    def tests_dir(self) -> Path:
        return self.root / "tests" / self.name

    def test_files(self, visibility: str) -> list[Path]:
        return sorted((self.tests_dir / visibility).glob("test_*.py"))

    @property
    def common_module(self) -> Path:
        """tests/<a>/common.py: helpers and case generators shared by public and hidden tests
        (importable as `common`; it ships to students, so nothing hidden-only goes there)."""
        return self.tests_dir / "common.py"

    def goldens_path(self, store: str, base: Path | None = None) -> Path:
        """The golden store `store`: a visibility or GRADED_INPUTS."""
        return (base or self.tests_dir) / "goldens" / f"{store}.json"

    def inputs_path(self, store: str, base: Path | None = None) -> Path:
        """The stored inputs of `store`: a visibility or GRADED_INPUTS."""
        return (base or self.tests_dir) / "inputs" / f"{store}.json"

    @property
    def solutions(self) -> Path:
        return self.root / "solutions"

    @property
    def starter(self) -> Path:
        return self.root / "starter"

    @property
    def mutants_file(self) -> Path:
        return self.root / "solutions" / "mutants" / f"{self.name}.toml"

    @cached_property
    def checks(self) -> ModuleType | None:
        """The trusted parent-side checks module (tests/<a>/checks.py), if any."""
        path = self.tests_dir / "checks.py"
        if not path.exists():
            return None
        spec = importlib.util.spec_from_file_location(f"_checks_{self.name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


def load(name: str, root: Path | None = None) -> Assignment:
    root = root or course_root()
    path = root / "tests" / name / "assignment.toml"
    if not path.exists():
        known = ", ".join(a.name for a in discover(root)) or "none"
        raise AssignmentError(f"unknown assignment '{name}' (known: {known})")
    cfg = tomllib.loads(path.read_text(encoding="utf-8"))
    if not isinstance(cfg.get("measured_timeouts", True), bool):
        raise AssignmentError(f"{path}: measured_timeouts must be true or false")
    try:
        return Assignment(name=name, package=cfg["package"], number=int(cfg["number"]),
                          title=cfg["title"], forbidden=tuple(cfg.get("forbidden", ())),
                          test_timeout=float(cfg.get("test_timeout", 10)),
                          run_timeout=float(cfg.get("run_timeout", 120)), root=root,
                          measured_timeouts=cfg.get("measured_timeouts", True))
    except KeyError as e:
        raise AssignmentError(f"{path}: missing key {e}") from None


def discover(root: Path | None = None) -> list[Assignment]:
    """Every assignment present, in teaching order."""
    root = root or course_root()
    found = [load(p.parent.name, root) for p in (root / "tests").glob("*/assignment.toml")]
    return sorted(found, key=lambda a: a.number)
