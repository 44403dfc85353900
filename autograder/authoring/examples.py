"""Bundled example submissions (examples/*.zip) and the demo that grades them.

Each example is one student's zip holding a package per assignment:
  complete.zip     every reference solution             -> full marks
  classic-bugs.zip each assignment's first mutant       -> points lost, misconception named
  starter.zip      the untouched starters               -> zero
  broken.zip       a syntax error, an import-time crash -> clear messages, zero, results.json
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

from ..assignments import course_root, discover
from .mutants import load_mutants, materialize

EXAMPLE_NAMES = ("complete", "classic-bugs", "starter", "broken")
BROKEN = {0: "def broken(:\n", 1: "raise RuntimeError('crashed while importing')\n"}


def _add_package(zf: zipfile.ZipFile, pkg_dir: Path, arcroot: str) -> None:
    for path in sorted(pkg_dir.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        info = zipfile.ZipInfo(f"{arcroot}/{path.relative_to(pkg_dir.parent).as_posix()}",
                               date_time=(2026, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        zf.writestr(info, path.read_bytes())


def build_examples() -> dict[str, bytes]:
    """The example zips' bytes, built from the current solutions, mutants and starters."""
    assignments = discover()
    built = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in EXAMPLE_NAMES:
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
                for k, a in enumerate(assignments):
                    if name == "complete":
                        src = a.solutions / a.package
                    elif name == "classic-bugs":
                        mutants = load_mutants(a)
                        if not mutants:
                            continue
                        src = materialize(a, mutants[0], Path(tmp) / a.name) / a.package
                    elif name == "starter" or k not in BROKEN:
                        src = a.starter / a.package
                    else:
                        info = zipfile.ZipInfo(f"{name}/{a.package}/__init__.py",
                                               date_time=(2026, 1, 1, 0, 0, 0))
                        zf.writestr(info, BROKEN[k])
                        continue
                    _add_package(zf, src, name)
            built[f"{name}.zip"] = buf.getvalue()
    return built


def examples_dir() -> Path:
    return course_root() / "examples"


def write_examples() -> list[Path]:
    examples_dir().mkdir(exist_ok=True)
    paths = []
    for name, data in build_examples().items():
        (examples_dir() / name).write_bytes(data)
        paths.append(examples_dir() / name)
    return paths


def stale_examples() -> list[str]:
    """Example zips whose contents differ from what build_examples() makes now (`python -m
    autograder examples --check` prints them)."""
    stale = []
    for name, data in build_examples().items():
        path = examples_dir() / name
        if not path.exists():
            stale.append(f"{name} is missing")
            continue
        with zipfile.ZipFile(path) as old, zipfile.ZipFile(io.BytesIO(data)) as new:
            if {i.filename: old.read(i) for i in old.infolist()} != \
                    {i.filename: new.read(i) for i in new.infolist()}:
                stale.append(f"{name} differs from the current solutions/starters")
    return stale
