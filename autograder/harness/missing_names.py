"""A name the tests import from the package under test that the package lacks costs only the
tests that use it.

Without this, `from ddp import MiniDDP` in a test file (or in common.py, which every test file
imports) raises ImportError while pytest collects it, and every test of those files fails, for
one missing function. In the graded child (boot.py) and in local mode (grading/local_pytest.py),
`PackageCompleter` finishes the package's import: each expected name the package does not
define becomes a `MissingName` placeholder, which raises NotImplementedError ("<package>.<name>
is missing from your package ...") as soon as a test uses it (calls it, reads an attribute of it,
subclasses it, or asks isinstance with it). So only the tests that use the name fail, each
with that line; the error carries the dotted name as `graded_missing` (plugin.py reports it,
as it reports a forbidden import's module). A placeholder never gives a point: every use of
it raises, and NotImplementedError is no answer (`Recorder.raises` lets it through; hints
never match it).

The expected names are the ones the test files import from the package (the parent reads
them from the tests, backends/run_folder.py's `package_names`); a package that imports
badly fails as before. Stdlib only: it runs next to student code and trusts nothing there.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Iterable
from types import ModuleType


def missing_name(error: BaseException | None) -> str | None:
    """The dotted name a placeholder stood for (`graded_missing` of the error it raised), or
    None."""
    name = getattr(error, "graded_missing", None)
    return name[:200] if isinstance(name, str) else None


class MissingName:
    """Stands for `package.name` where the package lacks it; any use raises."""

    __slots__ = ("_graded_name",)

    def __init__(self, dotted: str):
        object.__setattr__(self, "_graded_name", dotted)

    def _missing(self) -> NotImplementedError:
        dotted = object.__getattribute__(self, "_graded_name")
        package, _, name = dotted.partition(".")
        error = NotImplementedError(
            f"{dotted} is missing from your package: the tests import it as `from {package} "
            f"import {name}` (define it, or import it in {package}/__init__.py)")
        error.graded_missing = dotted
        return error

    def __call__(self, *args, **kwargs):
        raise self._missing()

    def __getattr__(self, attribute: str):
        if attribute.startswith("_"):  # what tools probe (copy, inspect, pytest's fixtures)
            raise AttributeError(attribute)
        raise self._missing()  # an attribute of a missing module or class: a use

    def __setattr__(self, attribute: str, value) -> None:
        raise self._missing()

    def __mro_entries__(self, bases):  # `class Mine(MiniDDP)`
        raise self._missing()

    def __instancecheck__(self, instance) -> bool:  # isinstance(x, MiniDDP)
        raise self._missing()

    def __subclasscheck__(self, subclass) -> bool:
        raise self._missing()

    def __repr__(self) -> str:
        return f"<{object.__getattribute__(self, '_graded_name')}: missing from your package>"


def complete(module: ModuleType, package: str, names: Iterable[str]) -> list[str]:
    """Bind a MissingName for each of `names` that `module` (the package) does not define;
    returns the names bound. A name whose lookup raises something other than AttributeError
    (a lazy `__getattr__` that fails) is left alone: the test that uses it sees that error."""
    bound = []
    for name in names:
        if _submodule(module, name):
            continue  # `from package import name` imports it
        try:
            getattr(module, name)
            continue
        except AttributeError:
            pass
        except Exception:  # noqa: BLE001 - the package's own error, for the test to meet
            continue
        setattr(module, name, MissingName(f"{package}.{name}"))
        bound.append(name)
    return bound


def _submodule(module: ModuleType, name: str) -> bool:
    """Whether the package has a submodule `name` (found, not imported)."""
    path = getattr(module, "__path__", None)
    if path is None:
        return False
    try:
        return importlib.machinery.PathFinder.find_spec(f"{module.__name__}.{name}",
                                                        list(path)) is not None
    except (ImportError, ValueError, TypeError):
        return False


class PackageCompleter(importlib.abc.MetaPathFinder):
    """Finds each package of `expected` ({package: its names, or a function returning them})
    with the other finders and, once the package's own code has run, completes it
    (`complete`). It changes nothing else of the import: the loader, its type and every
    error the package raises stay the package's own."""

    def __init__(self, expected: dict[str, Iterable[str] | Callable[[], Iterable[str]]]):
        self.expected = dict(expected)
        self.finding: set[str] = set()

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.expected or fullname in self.finding:
            return None
        self.finding.add(fullname)
        try:
            spec = next((s for finder in sys.meta_path if finder is not self
                         and hasattr(finder, "find_spec")
                         and (s := finder.find_spec(fullname, path, target)) is not None), None)
        finally:
            self.finding.discard(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run_package = spec.loader.exec_module
        wanted = self.expected[fullname]

        def exec_module(module: ModuleType) -> None:
            run_package(module)
            complete(module, fullname, wanted() if callable(wanted) else wanted)

        spec.loader.exec_module = exec_module  # this spec's own loader instance only
        return spec
