# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_forbidden_absent.py)
"""Attack: delegate a task to the library object a dotted `forbidden` rule names,
reached by a computed route that no import statement shows, after removing the harness's
import hook. Placeholders: __TECHNIQUE__ (the route), __MODULE__ (the defining module, in
pieces), __NAME__ (the object's name, in pieces), __ANCHOR__ (an allowed module whose
functions' globals the `globals` route reads, in pieces)."""
import gc
import importlib
import inspect
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


def find():
    found = {"getattr_built": getattr_built, "importlib_built": importlib_built,
             "subclasses": subclasses, "globals": globals_, "gc_objects": gc_objects,
             "sys_modules": sys_modules, "aten_op": aten_op}["__TECHNIQUE__"]()
    if found is None:
        raise NotImplementedError("not found")
    return found
