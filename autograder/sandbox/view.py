"""The child's view of the installed packages: what a dotted `forbidden` rule names does not exist.

A rule below the top level (`torch.utils.data.DistributedSampler`, `scipy.stats.ttest_ind`,
`transformers.models` with `!` exceptions: autograder/grading/forbidden.py) names part of a
package the assignment allows. Blocking its import is not enough: the allowed package imports
the part itself, so computed access (`Sampler.__subclasses__()`, another function's
`__globals__`, `gc.get_objects()`, `importlib` by a built name) would find it in memory. The
view replaces its definition on disk instead; bubblewrap mounts each replacement read-only
over the original file (sandbox/bwrap.py), so the original is never loaded:

- a class or function a rule names (found through the re-exports of the package's
  `__init__` files, `from x import *` included): the defining module is a generated copy in
  which that top-level definition is a stub (a function, or a class that cannot be
  instantiated or subclassed) raising ImportError, and so are the module's private
  functions only it uses (scipy's Welch denominator); every name the library imports stays
  importable, nothing of the original body remains;
- a module the allowed package does not load (checked once by importing each rule's parent in
  a trusted interpreter): masked, a module whose import raises ImportError;
- a module the allowed package loads (`torch.utils.data.distributed`): every top-level class
  and function of its files is a stub, and so is each public definition it re-exports from
  elsewhere (`torch.func.jacrev` is torch._functorch's) unless the top-level package exports
  it too (`torch.vmap`);
- a package with exceptions below it (`transformers.models` but `!…gpt2`): a generated folder
  holding only its `__init__` and the excepted entries (bound from the original); the rest is
  absent, not even listed.

A rule the view cannot remove is refused (`UnremovableRule`): a compiled function or operator
(`torch.fake_quantize_per_tensor_affine` has no Python source, and its kernels are in every
process that loads torch) cannot be made absent, so SPEC §3 drops such a rule and reshapes the
task until no library call gives its answer; a module the library needs whole
(`scipy.stats._stats_py`) is named by the definitions inside it instead
(`scipy.stats.ttest_ind`). Each generated module comes with its bytecode (the children run with
`-B` and read the `.pyc` files setup wrote), mounted over the original's `.pyc`.

A view is built once per (rules, installed package files, this generator) and cached under
`$XDG_CACHE_HOME/autograder/views/` (default `~/.cache`); a cached view is a manifest read in
a millisecond.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import py_compile
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from importlib.util import cache_from_source
from pathlib import Path

from .. import settings
from .rules import deciding_rule
from .threadsafe_ast import parse
from .view_stubs import DEFS, masked_text, stubbed_text, top_nodes


class UnremovableRule(ValueError):
    """A forbidden rule that names what the view cannot make absent (compiled code)."""


@dataclass(frozen=True)
class View:
    """Read-only bind mounts (source on the host, target path), in order."""

    mounts: tuple[tuple[str, str], ...] = ()

    def bwrap_args(self) -> list[str]:
        return [a for source, target in self.mounts for a in ("--ro-bind", source, target)]


def import_dirs() -> list[str]:
    """The folders a child imports from: stdlib, lib-dynload, every site-packages."""
    paths = sysconfig.get_paths()
    dirs: list[str] = []
    for p in [paths["stdlib"], paths["platstdlib"], os.path.join(paths["stdlib"], "lib-dynload"),
              *site.getsitepackages(), *[q for q in sys.path if q.endswith("site-packages")]]:
        if os.path.isdir(p) and p not in dirs:
            dirs.append(p)
    return dirs


def module_path(name: str, dirs: list[str]) -> Path | None:
    """The package folder or module file of a dotted module name, or None."""
    rel = Path(*name.split("."))
    for d in dirs:
        if (Path(d) / rel / "__init__.py").is_file():
            return Path(d) / rel
        if (Path(d) / rel.with_suffix(".py")).is_file():
            return Path(d) / rel.with_suffix(".py")
    return None


def source_file(path: Path) -> Path:
    return path / "__init__.py" if path.is_dir() else path





def find_definition(module: str, name: str, dirs: list[str],
                    depth: int = 0) -> tuple[str, str] | None:
    """Where `module.name` is defined: ("def", "file::name") for a top-level class or function,
    ("module", dotted) when the name is a module, following `from x import name` and
    `from x import *` re-exports; None when it is not found in Python source."""
    path = module_path(module, dirs)
    if path is None or depth > 8:
        return None
    if module_path(f"{module}.{name}", dirs) is not None:
        return ("module", f"{module}.{name}")
    file = source_file(path)
    try:
        tree = parse(file.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    package = module if path.is_dir() else module.rpartition(".")[0]
    nodes = top_nodes(tree)
    for node in nodes:
        if isinstance(node, DEFS) and node.name == name:
            return ("def", f"{file}::{name}")
    for node in nodes:
        if not isinstance(node, ast.ImportFrom):
            continue
        base = package.split(".")
        source = ".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module
                                                                else [])) \
            if node.level else node.module or ""
        for alias in node.names:
            if alias.name == "*" or (alias.asname or alias.name) == name:
                found = find_definition(source, name if alias.name == "*" else alias.name,
                                        dirs, depth + 1)
                if found is not None:
                    return found
    return None


def loaded_modules(modules: list[str]) -> set[str]:
    """Which of `modules` the allowed packages load themselves: each one's parent is imported
    in a fresh trusted interpreter (what a child importing the allowed package gets)."""
    if not modules:
        return set()
    parents = sorted({m.rpartition(".")[0] for m in modules})
    code = ("import importlib, json, sys\n"
            f"for p in {parents!r}:\n"
            "    try:\n        importlib.import_module(p)\n"
            "    except Exception:\n        pass\n"
            f"print(json.dumps([m for m in {modules!r} if m in sys.modules]))\n")
    env = {"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "OMP_NUM_THREADS": "1"}
    try:
        out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                             timeout=600, env=env, check=False)
        return set(json.loads(out.stdout.strip().splitlines()[-1]))
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return set(modules)  # unknown: treat as loaded (stubs, never a broken package)


def _cache_root() -> Path:
    return settings.path(settings.XDG_CACHE_HOME) / "autograder" / "views"


def cache_key(rules: tuple[str, ...], dirs: list[str]) -> str:
    """Changes with the rules, the interpreter, this generator, and the installed version of
    each package a rule names (its `__init__.py`'s size and mtime)."""
    parts = [sys.version, *sorted(rules)]
    for generator in (Path(__file__), Path(__file__).with_name("view_stubs.py")):
        parts.append(hashlib.sha256(generator.read_bytes()).hexdigest())
    for top in sorted({r.lstrip("!").split(".")[0] for r in rules}):
        path = module_path(top, dirs)
        if path is not None:
            st = source_file(path).stat()
            parts.append(f"{path}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


def child_view(rules) -> View:
    """The view for an assignment's `forbidden` rules, from the cache or built now; raises
    UnremovableRule for a rule naming compiled code."""
    dotted = tuple(sorted(r for r in rules if "." in r.lstrip("!")))
    if not any(not r.startswith("!") for r in dotted):
        return View()
    dirs = import_dirs()
    folder = _cache_root() / cache_key(dotted, dirs)
    manifest = folder / "view.json"
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        cached = View(tuple(map(tuple, data["mounts"])))
        if all(os.path.exists(p) for mount in cached.mounts for p in mount):
            return cached
        shutil.rmtree(folder, ignore_errors=True)  # bytecode removed since: bwrap would fail
    except (OSError, ValueError, KeyError):
        pass
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"{folder.name}.", dir=folder.parent))
    try:
        view = build(dotted, dirs, work, folder)
        (work / "view.json").write_text(json.dumps({"mounts": view.mounts}, indent=1),
                                        encoding="utf-8")
        os.chmod(work, 0o755)
        os.rename(work, folder)
    except OSError as e:
        if not manifest.is_file():  # else another grader built it meanwhile
            raise OSError(f"cannot build the child's view of {', '.join(dotted)}: {e}") from e
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return view


def build(rules: tuple[str, ...], dirs: list[str], work: Path, final: Path) -> View:
    """Generate the replacements of `rules` under `work` (they will live under `final`)."""
    defs: dict[Path, dict[str, str]] = {}       # file -> {name: rule}
    whole: dict[Path, str] = {}                 # file -> rule (every definition stubbed)
    masked: dict[Path, str] = {}                # module path -> rule
    split: dict[Path, tuple[str, list[str]]] = {}  # package -> (rule, excepted entry names)
    modules: list[tuple[str, Path]] = []
    for rule in (r for r in rules if not r.startswith("!")):
        path = module_path(rule, dirs)
        if path is not None:
            modules.append((rule, path))
            continue
        if module_path(rule.split(".")[0], dirs) is None:
            continue  # its library is not installed here: absent already, nothing to remove
        parent, _, name = rule.rpartition(".")
        found = find_definition(parent, name, dirs)
        if found is None:
            raise UnremovableRule(
                f"forbidden rule {rule!r} is not defined in Python source (a compiled function "
                "or operator): no view can remove it from a process that loads its library; "
                "drop the rule and reshape the task so that no library call gives its answer "
                "(SPEC §3)")
        if found[0] == "module":
            path = module_path(found[1], dirs)
            modules.append((rule, path))
        else:
            file, _, defname = found[1].partition("::")
            defs.setdefault(Path(file), {})[defname] = rule
    loaded = loaded_modules([r for r, _ in modules])
    for rule, path in modules:
        exceptions = [r[1:] for r in rules if r.startswith(f"!{rule}.")]
        if exceptions and path.is_dir():
            split[path] = (rule, sorted({e[len(rule) + 1:].split(".")[0] for e in exceptions}))
        elif rule in loaded:
            files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
            for f in files:
                if deciding_rule(rules, _dotted_of(f, path, rule)) is not None:
                    whole[f] = rule
            for file, name in reexports(rule, path, dirs):  # torch.func: torch._functorch's
                defs.setdefault(file, {}).setdefault(name, rule)
        else:
            masked[path] = rule
    mounts: list[tuple[str, str]] = []
    counter = iter(range(1 << 30))

    def place(text: str, target: Path) -> None:
        """Write `text` as the replacement of file `target`, with its bytecode."""
        n = next(counter)
        gen = work / f"{n}.py"
        gen.write_text(text, encoding="utf-8")
        os.chmod(gen, 0o644)
        mounts.append((str(final / gen.name), str(target)))
        pyc = Path(cache_from_source(str(target)))
        if pyc.exists():
            gen_pyc = work / f"{n}.pyc"
            py_compile.compile(str(gen), cfile=str(gen_pyc), dfile=str(target), doraise=True)
            os.chmod(gen_pyc, 0o644)
            mounts.append((str(final / gen_pyc.name), str(pyc)))

    for file in sorted(set(defs) | set(whole)):
        text = file.read_text(encoding="utf-8")
        place(stubbed_text(text, defs.get(file), whole.get(file)), file)
    for path, rule in sorted(masked.items()):
        if path.is_dir():
            stub = work / f"pkg{next(counter)}"
            stub.mkdir()
            (stub / "__init__.py").write_text(masked_text(rule), encoding="utf-8")
            os.chmod(stub / "__init__.py", 0o644)
            os.chmod(stub, 0o755)
            mounts.append((str(final / stub.name), str(path)))
        else:
            place(masked_text(rule), path)
    for path, (_rule, entries) in sorted(split.items()):
        stub = work / f"pkg{next(counter)}"
        stub.mkdir()
        keep = ["__init__.py", "__pycache__", *entries]
        for entry in keep:
            real = path / entry
            if real.is_dir():
                (stub / entry).mkdir()
                os.chmod(stub / entry, 0o755)
            elif real.exists():
                (stub / entry).write_text("")
        os.chmod(stub, 0o755)
        mounts.append((str(final / stub.name), str(path)))
        mounts += [(str(path / e), str(path / e)) for e in keep if (path / e).exists()]
    return View(tuple(mounts))


def reexports(rule: str, path: Path, dirs: list[str]) -> list[tuple[Path, str]]:
    """(file, name) of each definition the module `rule` re-exports from outside itself, in its
    `__all__` (`torch.func.jacrev` is `torch._functorch.eager_transforms.jacrev`; not the
    `Sampler` a module merely imports), but those the top-level package exports too
    (`torch.vmap`: allowed)."""
    top = rule.split(".")[0]
    top_tree = parse(source_file(module_path(top, dirs)).read_text(encoding="utf-8"))
    allowed = {a.asname or a.name for node in ast.walk(top_tree)
               if isinstance(node, ast.ImportFrom) for a in node.names}
    out = []
    tree = parse(source_file(path).read_text(encoding="utf-8"))
    exported = {n.value for node in top_nodes(tree) if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                for n in ast.walk(node.value) if isinstance(n, ast.Constant)}
    for node in top_nodes(tree):
        if not isinstance(node, ast.ImportFrom) or node.level or not node.module \
                or node.module == rule or node.module.startswith(rule + "."):
            continue
        for alias in node.names:
            found = find_definition(node.module, alias.name, dirs)
            name = alias.asname or alias.name
            if found is not None and found[0] == "def" and name in exported \
                    and name not in allowed:
                file, _, name = found[1].partition("::")
                out.append((Path(file), name))
    return out


def _dotted_of(file: Path, root: Path, rule: str) -> str:
    """The dotted module name of `file` inside the module `rule` rooted at `root`."""
    if not root.is_dir():
        return rule
    rel = file.relative_to(root).with_suffix("").parts
    rel = rel[:-1] if rel and rel[-1] == "__init__" else rel
    return ".".join([rule, *rel])
