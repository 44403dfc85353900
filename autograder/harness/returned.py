"""What the contract's functions return, as plain data: the type of each value a test got back
from a function whose return type the contract states (`[returns]` in the assignment's
assignment.toml, from SPEC §5). Runs in the sandbox; nothing here judges.

`ReturnedTypes.finder()` goes first on `sys.meta_path` (boot.py, graded runs): when the
implementation's package has been imported, each function the table names is wrapped so that
every call records its result's type: `name`, the package's attribute (what the tests import;
the package's own modules keep calling theirs: its internals are free), or `Class.attribute`,
a method, a property, a static or class method of a class the package exports. The
plugin (plugin.py) reads what each test's calls returned (`since_mark`) into its end event;
the parent (grading/returns.py) holds the contract and fails a test whose calls returned
another type, naming the function, the type it returned and the contract's.

A type is described by its classes, most derived first (builtins by name, the package's own
classes by the name the package exports them under, others as module.qualname), and the dtype
of a NumPy array or scalar or of a torch tensor.
"""

from __future__ import annotations

import functools
import importlib.abc
import sys
from collections.abc import Callable, Iterable
from typing import Any

MAX_TYPES = 4  # distinct types kept per function and test
MAX_FUNCTIONS = 64  # functions reported per test
MAX_CLASSES = 12  # classes of one type's description
MAX_NAME = 200  # characters of a class's name
_DTYPED = ("numpy.ndarray", "numpy.generic", "torch.Tensor")


class ReturnedTypes:
    """The types the contract's functions returned since the last `mark`, per function."""

    def __init__(self, package: str, names: Iterable[str]):
        self.package, self.names = package, tuple(names)
        self.exported: dict[type, str] = {}
        self.dtyped: dict[type, bool] = {}  # a NumPy array or scalar, or a torch tensor
        self.seen: set[tuple[str, type, str]] = set()
        self.current: dict[str, list[dict]] = {}

    def finder(self) -> importlib.abc.MetaPathFinder:
        return _PackageFinder(self)

    def mark(self) -> None:
        """A test starts: its calls are recorded from here."""
        self.seen, self.current = set(), {}

    def since_mark(self) -> dict[str, list[dict]]:
        """{function: [type descriptions]} of the calls since `mark`."""
        return self.current

    def record(self, name: str, value: Any) -> None:
        kind = type(value)
        dtyped = self.dtyped.get(kind)
        if dtyped is None:
            dtyped = self.dtyped[kind] = any(f"{c.__module__}.{c.__qualname__}" in _DTYPED
                                             for c in kind.__mro__)
        # read only from those types: another object's `dtype` could run the student's code
        dtype = str(value.dtype).removeprefix("torch.")[:MAX_NAME] if dtyped else None
        key = (name, kind, dtype)
        if key in self.seen:
            return
        self.seen.add(key)
        found = self.current.get(name)
        if found is None:
            if len(self.current) >= MAX_FUNCTIONS:
                return
            found = self.current[name] = []
        if len(found) < MAX_TYPES:
            found.append({"classes": self.classes(kind), "dtype": dtype})

    def classes(self, kind: type) -> list[str]:
        names = []
        for cls in kind.__mro__[:MAX_CLASSES]:
            if cls is object:
                continue
            if cls in self.exported:
                names.append(f"{self.package}.{self.exported[cls]}")
            elif cls.__module__ == "builtins":
                names.append(str(cls.__qualname__)[:MAX_NAME])
            else:
                names.append(f"{cls.__module__}.{cls.__qualname__}"[:MAX_NAME])
        return names

    def wrap_package(self, module: Any) -> None:
        """Wrap the table's functions of the freshly imported package `module`; a name it
        lacks, or cannot rebind, is left alone (the tests report what they miss)."""
        self.exported = {v: k for k, v in vars(module).items() if isinstance(v, type)}
        for name in self.names:
            try:
                if "." in name:
                    owner, attribute = name.split(".", 1)
                    self._wrap_attribute(getattr(module, owner), attribute, name)
                else:
                    self._wrap_function(module, name)
            except Exception:  # noqa: BLE001 - anything odd: the function stays as it is
                continue

    def _wrap_function(self, module: Any, name: str) -> None:
        fn = getattr(module, name)
        if not callable(fn):
            return
        setattr(module, name, self._wrapped(fn, name))

    def _wrap_attribute(self, cls: Any, attribute: str, name: str) -> None:
        if not isinstance(cls, type):
            return
        raw = next((c.__dict__[attribute] for c in cls.__mro__ if attribute in c.__dict__), None)
        if isinstance(raw, property) and raw.fget is not None:
            setattr(cls, attribute, property(self._wrapped(raw.fget, name), raw.fset, raw.fdel,
                                             raw.__doc__))
        elif isinstance(raw, staticmethod):
            setattr(cls, attribute, staticmethod(self._wrapped(raw.__func__, name)))
        elif isinstance(raw, classmethod):
            setattr(cls, attribute, classmethod(self._wrapped(raw.__func__, name)))
        elif callable(raw):
            setattr(cls, attribute, self._wrapped(raw, name))

    def _wrapped(self, fn: Callable, name: str) -> Callable:
        record = self.record

        @functools.wraps(fn)
        def contract_checked(*args: Any, **kwargs: Any) -> Any:
            result = fn(*args, **kwargs)
            if result is not NotImplemented:  # a binary operator declining: Python asks the other side
                record(name, result)
            return result

        return contract_checked


class _PackageFinder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when the package is imported, it has the rest of sys.meta_path
    find it and has its loader call `wrap_package` once the package's code has run."""

    def __init__(self, returned: ReturnedTypes):
        self.returned, self.finding = returned, False

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.returned.package or self.finding:
            return None
        self.finding = True
        try:
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
            else:
                return None
        finally:
            self.finding = False
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module: Any) -> None:
            run(module)
            self.returned.wrap_package(module)

        loader.exec_module = exec_module  # this module's loader only (one instance per module)
        return spec
