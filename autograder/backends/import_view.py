"""The import view of the zygote (backends/zygote.py): while it preloads, modules are found and
read as the children's view of the packages shows them (sandbox/view.py). zygote.py runs as
`python -I` and loads this file by path (a sibling of it is not on its sys.path)."""

from __future__ import annotations

import importlib.machinery
import os
import sys


class ViewFinder:
    """Imports as the children's view of the packages (sandbox/view.py) shows them: a file
    under a mount's target is read from its source, as `bwrap --ro-bind source target` shows
    it (the deepest target wins); a module the view lacks is absent, never the host's. The
    spec keeps the target path, what the child's mounts show. A fork `leave`s it first."""

    def __init__(self, mounts: list[list[str]]):
        self.mounts = sorted(((src.rstrip("/"), dst.rstrip("/")) for src, dst in mounts),
                             key=lambda m: len(m[1]))
        self.active = bool(self.mounts)

    def translate(self, path: str) -> str:
        if not self.active:
            return path
        found = path
        for source, target in self.mounts:  # shallow to deep: the deepest match wins
            if path == target or path.startswith(target + "/"):
                found = source + path[len(target):]
        return found

    def find_spec(self, fullname, path=None, target=None):
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or not self.active or not spec.has_location or not spec.origin:
            return spec
        seen = self.translate(spec.origin)
        if seen != spec.origin and not os.path.exists(seen):
            raise ModuleNotFoundError(f"No module named '{fullname}'", name=fullname)
        if seen != spec.origin and spec.origin.endswith(".py"):
            spec.loader = ViewLoader(fullname, spec.origin, self)
        return spec

    def install(self) -> None:
        finders = [type(f) if not isinstance(f, type) else f for f in sys.meta_path]
        sys.meta_path.insert(finders.index(importlib.machinery.PathFinder), self)

    def leave(self) -> None:
        self.active = False
        if self in sys.meta_path:
            sys.meta_path.remove(self)


class ViewLoader(importlib.machinery.SourceFileLoader):
    """A source file, and its bytecode, read through the view."""

    def __init__(self, fullname: str, path: str, view: ViewFinder):
        super().__init__(fullname, path)
        self.view = view

    def get_data(self, path):
        return super().get_data(self.view.translate(path))

    def path_stats(self, path):
        return super().path_stats(self.view.translate(path))
