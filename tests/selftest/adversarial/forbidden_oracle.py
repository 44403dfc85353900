# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_forbidden_absent.py)
"""Attack: delegate a task to the library object a `forbidden` rule names, reached by a
computed route that no import statement shows, after removing the harness's import hook, or
from another Python installation than the child's venv. Placeholders: __TECHNIQUE__ (the route),
__MODULE__ (the defining module, in pieces), __NAME__ (the object's name, in pieces),
__ANCHOR__ (an allowed module whose functions' globals the `globals` route reads, in pieces)."""
import functools
import gc
import glob
import importlib
import inspect
import json
import os
import subprocess
import sys
import types

sys.meta_path[:] = [f for f in sys.meta_path if "Forbidden" not in type(f).__name__]
MODULE, NAME, ANCHOR = "".join(__MODULE__), "".join(__NAME__), "".join(__ANCHOR__)


def getattr_built():
    """Attribute by attribute from the top-level package, every name built at run time."""
    obj = importlib.import_module(MODULE.split(".")[0])
    for piece in MODULE.split(".")[1:] + [NAME]:
        obj = getattr(obj, piece)
    return obj


def importlib_built():
    return getattr(importlib.import_module(MODULE), NAME)


def subclasses():
    """The class among every subclass of object (DistributedSampler among Sampler's)."""
    todo, seen = [object], set()
    while todo:
        cls = todo.pop()
        if cls.__name__ == NAME and cls.__module__ == MODULE:
            return cls
        try:
            subs = type.__subclasses__(cls) if cls is type else cls.__subclasses__()
        except TypeError:
            continue
        for sub in subs:
            if id(sub) not in seen:
                seen.add(id(sub))
                todo.append(sub)
    return None


def globals_():
    """Read from the globals of another function of an allowed module."""
    anchor = importlib.import_module(ANCHOR)
    for value in list(vars(anchor).values()):
        fn = inspect.unwrap(value) if callable(value) else None
        found = getattr(fn, "__globals__", {}).get(NAME)
        if found is not None and getattr(found, "__module__", "") == MODULE:
            return found
    return None


def gc_objects():
    """Every object the collector tracks (the warm zygote's, frozen before it forks, moved back
    first); the outermost wrapper of a decorated function."""
    gc.unfreeze()
    found = [obj for obj in gc.get_objects() if isinstance(obj, (type, types.FunctionType))
             and obj.__name__ == NAME and obj.__module__ == MODULE]
    found.sort(key=lambda obj: not hasattr(obj, "__wrapped__"))
    return found[0] if found else None


def sys_modules():
    for module in list(sys.modules.values()):
        found = getattr(module, "__dict__", {}).get(NAME)
        if found is not None and getattr(found, "__module__", None) == MODULE:
            return found
    return None


def aten_op():
    """A compiled operator through the dispatcher's namespace, by a built name."""
    return getattr(importlib.import_module("torch").ops.aten, NAME)


def foreign_path():
    """The object from another installation: the base interpreter's own site folder (the venv's
    `sys.base_prefix`) and the system's, each put first on sys.path where it holds the top
    package, the package imported afresh from there."""
    top = MODULE.split(".")[0]
    viewed = {os.path.realpath(p) for p in sys.path if p.endswith(("site-packages", "dist-packages"))}
    candidates = glob.glob(f"{sys.base_prefix}/lib/python3*/site-packages") + \
        glob.glob("/usr/lib/python3*/dist-packages") + glob.glob("/usr/local/lib/python3*/*-packages")
    for path in candidates:
        if os.path.realpath(path) in viewed or not os.path.isdir(os.path.join(path, top)):
            continue
        for loaded in [m for m in sys.modules if m == top or m.startswith(top + ".")]:
            del sys.modules[loaded]
        sys.path.insert(0, path)
        try:
            return getattr(importlib.import_module(MODULE), NAME)
        except Exception:
            continue
        finally:
            sys.path.remove(path)
    return None


def co_process():
    """The object called in a subprocess of the base interpreter (this venv's executable, its
    link resolved: no pyvenv.cfg beside it, so its own site folder's packages), kept running,
    arguments and the result's numbers as JSON lines."""
    exe = os.path.realpath(sys.executable)
    code = ("import importlib, json, sys\n"
            f"f = getattr(importlib.import_module({MODULE!r}), {NAME!r})\n"
            "for line in sys.stdin:\n"
            "    a, k = json.loads(line)\n"
            "    print(json.dumps([float(v) for v in f(*a, **k)]), flush=True)\n")
    server = subprocess.Popen([exe, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)

    def call(*args, **kwargs):
        server.stdin.write(json.dumps([[[float(v) for v in a] for a in args], kwargs]) + "\n")
        server.stdin.flush()
        line = server.stdout.readline()
        if not line:
            raise NotImplementedError("the co-process found no such object")
        return json.loads(line)
    return call


@functools.cache
def find():
    found = {"getattr_built": getattr_built, "importlib_built": importlib_built,
             "subclasses": subclasses, "globals": globals_, "gc_objects": gc_objects,
             "sys_modules": sys_modules, "aten_op": aten_op, "foreign_path": foreign_path,
             "co_process": co_process}["__TECHNIQUE__"]()
    if found is None:
        raise NotImplementedError("not found")
    return found
