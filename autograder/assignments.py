"""Where an assignment's files live. An assignment exists when tests/<name>/assignment.toml does."""

from __future__ import annotations

import importlib.util
import re
import tomllib
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from types import ModuleType

from .settings import COURSE_ROOT

ROOT = Path(__file__).resolve().parent.parent  # the checkout the engine is in


def course_root() -> Path:
    """The course graded against: TRAINING_SYSTEMS_ROOT (settings.COURSE_ROOT), else ROOT."""
    return Path(COURSE_ROOT.value() or ROOT)


class Visibility(StrEnum):
    """Who sees a test's outcome before grades are published: its folder under tests/<a>/, its
    golden store's and stored inputs' file name, and its value in results.json (a StrEnum: it
    is that string in JSON)."""

    PUBLIC = "public"  # the student runs it (`check`) and reads its message
    HIDDEN = "hidden"  # graded only; the student sees that it failed, nothing it computed


VISIBILITIES = tuple(Visibility)  # in run order: public first
# A handout's time estimate, its one source: "**Time:** about 4 hours", "**Time:** 4–8 h"
HANDOUT_TIME = re.compile(r"\*\*Time:\*\*\s*(?P<about>about\s+)?(?P<low>\d+)"
                          r"(?:\s*[–-]\s*(?P<high>\d+))?\s*(?:hours?|h)\b")


class AssignmentError(Exception):
    """An assignment is missing or misconfigured."""


@dataclass(frozen=True)
class TimeEstimate:
    """Hours an assignment takes, as its handout states them: `low`–`high` (equal for one
    number), `about` when the handout says "about"."""

    low: int
    high: int
    about: bool = False

    def __str__(self) -> str:
        hours = f"{self.low}" if self.low == self.high else f"{self.low}–{self.high}"
        return f"{'about ' if self.about else ''}{hours} h"

    def __add__(self, other: TimeEstimate) -> TimeEstimate:
        return TimeEstimate(self.low + other.low, self.high + other.high,
                            self.about or other.about)


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
    # the return types the contract states (assignment.toml's [returns]: a function's name, or
    # Class.attribute, and its type; grading/returns.py reads the types), as (name, type) pairs
    returns: tuple[tuple[str, str], ...] = ()

    @property
    def tests_dir(self) -> Path:
        return self.root / "tests" / self.name

    def test_files(self, visibility: Visibility) -> list[Path]:
        return sorted((self.tests_dir / visibility).glob("test_*.py"))

    @property
    def common_module(self) -> Path:
        """tests/<a>/common.py: helpers and case generators shared by public and hidden tests
        (importable as `common`; it ships to students, so nothing hidden-only goes there)."""
        return self.tests_dir / "common.py"

    def goldens_path(self, store: Visibility, base: Path | None = None) -> Path:
        """The golden store of visibility `store`."""
        return (base or self.tests_dir) / "goldens" / f"{store}.json"

    def inputs_path(self, store: Visibility, base: Path | None = None) -> Path:
        """The stored inputs of visibility `store` (under `base`: another folder's, e.g. a
        grading's draw)."""
        return (base or self.tests_dir) / "inputs" / f"{store}.json"

    @property
    def handout(self) -> Path | None:
        """assignments/NN_<name>/README.md (None when there is none)."""
        found = sorted((self.root / "assignments").glob(f"*_{self.name}/README.md"))
        return found[0] if found else None

    @cached_property
    def time_estimate(self) -> TimeEstimate | None:
        """The handout's own estimate of the hours the assignment takes (its **Time:** line),
        or None when it states none."""
        try:
            text = self.handout.read_text(encoding="utf-8") if self.handout else ""
        except OSError:
            return None
        found = HANDOUT_TIME.search(text)
        if found is None:
            return None
        low = int(found["low"])
        return TimeEstimate(low, int(found["high"] or low), bool(found["about"]))

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
    returns = cfg.get("returns", {})
    if not isinstance(returns, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                for k, v in returns.items()):
        raise AssignmentError(f"{path}: [returns] maps function names to type names")
    try:
        return Assignment(name=name, package=cfg["package"], number=int(cfg["number"]),
                          title=cfg["title"], forbidden=tuple(cfg.get("forbidden", ())),
                          test_timeout=float(cfg.get("test_timeout", 10)),
                          run_timeout=float(cfg.get("run_timeout", 120)), root=root,
                          measured_timeouts=cfg.get("measured_timeouts", True),
                          returns=tuple(returns.items()))
    except KeyError as e:
        raise AssignmentError(f"{path}: missing key {e}") from None


def discover(root: Path | None = None) -> list[Assignment]:
    """Every assignment present, in teaching order."""
    root = root or course_root()
    found = [load(p.parent.name, root) for p in (root / "tests").glob("*/assignment.toml")]
    return sorted(found, key=lambda a: a.number)
