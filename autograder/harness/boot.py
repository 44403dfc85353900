"""Entry point of the graded child process: `python -I -B boot.py CONFIG.json`.

Runs in the sandbox. Puts the harness and the implementation under test on sys.path, refuses
imports of the assignment's forbidden modules (a clear message; the sandbox's view is what
makes them absent), completes the package with a placeholder for each name the tests import
that it lacks (missing_names.py), caps what the child prints (output.py: pytest itself captures
nothing), records what the contract's functions return (returned.py), and runs pytest with the
recording plugin and nothing else.
"""

import importlib
import importlib.abc
import json
import os
import sys

LAZY_LOADERS = frozenset({"__getattr__", "_get_module"})  # PEP 562 lazy modules (transformers)
# pytest's built-in plugins the child's pytest does without (a zygote preloads the others)
BLOCKED_PLUGINS = ("cacheprovider", "pastebin", "legacypath")


class ForbiddenImportBlocker(importlib.abc.MetaPathFinder):
    """Makes the assignment's forbidden modules unimportable; the error names the line of the
    implementation (under `impl`) that imported it.

    Rules are autograder/grading/forbidden.py's: a top-level rule blocks the module for everyone; a
    rule below the top level (`torch.func`, `transformers.models`, with `!` exceptions) blocks
    an import the implementation's own code asks for (an import statement, `__import__`,
    `importlib.import_module` with a computed name), not one a library makes for itself
    (`import torch` loads torch.func; transformers loads its models lazily). Submodules a
    library loads eagerly, attributes, and a computed attribute of a lazy module are stopped
    statically at intake, and removed from the child's view of the packages by the sandbox
    (autograder/sandbox/view.py; docs/WRITING_TESTS.md, "Forbidden")."""

    def __init__(self, names, impl=""):
        self.rules = tuple(names)
        self.impl = os.path.join(impl, "") if impl else None

    def rule_for(self, fullname):
        if any(r.startswith("!") and r[1:].startswith(fullname + ".") for r in self.rules):
            return None  # a package on the way to an exception
        matching = [(len(r.lstrip("!")), r.startswith("!"), r) for r in self.rules
                    if fullname == r.lstrip("!") or fullname.startswith(r.lstrip("!") + ".")]
        if not matching:
            return None
        _, is_exception, rule = max(matching)
        return None if is_exception else rule

    def find_spec(self, fullname, path=None, target=None):
        rule = self.rule_for(fullname)
        if rule is None:
            return None
        if "." in rule and not self.imported_by_student():
            return None
        error = ImportError(f"module '{fullname}' is forbidden in this assignment"
                            + self.importer())
        error.graded_forbidden = fullname  # what plugin.py reports; the text is for people
        raise error

    def imported_by_student(self):
        """Whether the code asking for the import (past the import machinery and a lazy
        module's `__getattr__`, which imports for its caller: `transformers.Qwen2VLModel`) is
        the implementation's; a library loading its own parts for itself is not."""
        frame = sys._getframe(2)
        while frame is not None:
            name = frame.f_code.co_filename
            if self.impl and name.startswith(self.impl):
                return True  # the student's code (its own lazy __getattr__ included)
            if not (name.startswith("<frozen") or name == importlib.__file__
                    or frame.f_code.co_name in LAZY_LOADERS):
                return False
            frame = frame.f_back
        return False

    def student_frame(self):
        frame = sys._getframe(1)
        while frame is not None:
            name = frame.f_code.co_filename
            if self.impl and name.startswith(self.impl):
                return name[len(self.impl):], frame.f_lineno
            frame = frame.f_back
        return None

    def importer(self):
        where = self.student_frame()
        return f" (imported at {where[0]}:{where[1]})" if where else ""


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    sys.path[:0] = [json.loads(text)["lib"]]
    from autograder.harness.config import ChildConfig

    cfg = ChildConfig.from_json(text)
    sys.path[1:1] = [cfg.impl, cfg.rootdir]  # rootdir holds common.py
    if cfg.mode != "gen":  # golden generation runs trusted code, which may use oracles
        sys.meta_path.insert(0, ForbiddenImportBlocker(cfg.forbidden, cfg.impl))
    if cfg.package:
        from autograder.harness.missing_names import PackageCompleter

        sys.meta_path.insert(0, PackageCompleter({cfg.package: cfg.package_names}))
    os.chdir(cfg.workdir)
    import pytest

    from autograder.harness import output, plugin

    budget = output.PrintBudget()
    output.install(budget)  # what the child prints is capped and counted; pytest captures none
    returned = None
    if cfg.mode == "replay" and cfg.returns and cfg.package:
        from autograder.harness.returned import ReturnedTypes

        returned = ReturnedTypes(cfg.package, cfg.returns)  # the types its functions return
        sys.meta_path.insert(0, returned.finder())
    args = [*cfg.test_files, "-q", "--rootdir", cfg.rootdir, "-c", cfg.ini,
            "--import-mode=importlib", "--tb=short", "--no-header", "--capture=no",
            *(arg for name in BLOCKED_PLUGINS for arg in ("-p", f"no:{name}"))]
    recording = plugin.RecordingPlugin(cfg, budget=budget, returned=returned)
    return int(pytest.main(args, plugins=[plugin, recording]))


if __name__ == "__main__":
    # Every event is written and closed by now: skip the interpreter's teardown (0.5-1.7 s of
    # CPU with torch and transformers loaded, docs/PERFORMANCE.md), which the parent waits for.
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
