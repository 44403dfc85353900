"""Entry point of the graded child process: `python -I -B boot.py CONFIG.json`.

Runs in the sandbox. Puts the harness and the implementation under test on sys.path, hides the
assignment's forbidden modules, and runs pytest with the recording plugin and nothing else.
"""

import importlib.abc
import json
import os
import sys


class ForbiddenImportBlocker(importlib.abc.MetaPathFinder):
    """Makes the assignment's forbidden top-level modules unimportable; the error names the
    line of the implementation (under `impl`) that imported it."""

    def __init__(self, names, impl=""):
        self.names = frozenset(names)
        self.impl = os.path.join(impl, "") if impl else None

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] in self.names:
            raise ImportError(f"module '{fullname}' is forbidden in this assignment"
                              + self.importer())
        return None

    def importer(self):
        frame = sys._getframe(1)
        while frame is not None:
            name = frame.f_code.co_filename
            if self.impl and name.startswith(self.impl):
                return f" (imported at {name[len(self.impl):]}:{frame.f_lineno})"
            frame = frame.f_back
        return ""


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        cfg = json.load(f)
    sys.path[:0] = [cfg["lib"], cfg["impl"], cfg["rootdir"]]  # rootdir holds common.py
    if cfg["mode"] != "gen":  # golden generation runs trusted code, which may use oracles
        sys.meta_path.insert(0, ForbiddenImportBlocker(cfg["forbidden"], cfg["impl"]))
    os.chdir(cfg["workdir"])
    import pytest

    from autograder.harness import plugin

    args = [*cfg["test_files"], "-q", "-p", "no:cacheprovider", "--rootdir", cfg["rootdir"],
            "-c", cfg["ini"], "--import-mode=importlib", "--tb=short", "--no-header",
            "-p", "no:pastebin", "-p", "no:legacypath"]
    return int(pytest.main(args, plugins=[plugin, plugin.GradedRun(cfg)]))


if __name__ == "__main__":
    sys.exit(main())
