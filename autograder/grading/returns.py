"""The contract's return types, judged in the trusted parent: a test whose calls of a function
returned a type other than the one the contract states fails, and its message names the
function, the type it returned and the contract's (`violations`).

The contract is the assignment's `[returns]` table (assignment.toml, from SPEC §5; the parent
alone holds it); what the calls returned is the child's plain-data record of their types
(harness/returned.py: each type's classes, most derived first, and a dtype). A contract type:

    ndarray, ndarray[float64]   a NumPy array (a subclass too) or a NumPy scalar (a 0-d value
                                that behaves as one), of that dtype when one is named
    torch.Tensor, torch.Tensor[int64]   a torch tensor (a subclass too), of that dtype
    list, set, dict, str, tuple         that builtin or a subclass (set: a frozenset too)
    Name                                the package's own class it exports as Name, or a
                                        subclass
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_TYPE = re.compile(r"^(?P<kind>[A-Za-z_][\w.]*)(?:\[(?P<dtype>\w+)\])?$")
_BUILTINS = {"list", "set", "dict", "str", "tuple", "bytes", "int", "float", "bool"}
_ALSO = {"set": ("frozenset",)}  # what a builtin contract type accepts besides itself
_ARRAYS = {"ndarray": ("numpy.ndarray", "numpy.generic"), "torch.Tensor": ("torch.Tensor",)}


def check_type(contract: str) -> str | None:
    """Why `contract` is not a type this module reads, or None."""
    found = _TYPE.match(contract)
    if found is None:
        return f"{contract!r} is not a type (e.g. list, ndarray[float64], torch.Tensor, Tensor)"
    kind = found["kind"]
    if found["dtype"] and kind not in _ARRAYS:
        return f"{contract!r}: only ndarray and torch.Tensor take a dtype"
    if "." in kind and kind not in _ARRAYS:
        return f"{contract!r}: a dotted type must be torch.Tensor"
    return None


def matches(contract: str, described: Mapping, package: str) -> bool:
    """Whether a returned value's description (`classes`, `dtype`) is of the contract type."""
    found = _TYPE.match(contract)
    classes = described.get("classes") or []
    if found is None or not isinstance(classes, list):
        return False
    kind, dtype = found["kind"], found["dtype"]
    if kind in _ARRAYS:
        return any(c in classes for c in _ARRAYS[kind]) and (
            dtype is None or described.get("dtype") == dtype)
    if kind in _BUILTINS:
        return any(c in classes for c in (kind, *_ALSO.get(kind, ())))
    return f"{package}.{kind}" in classes


def contract_words(contract: str, package: str) -> str:
    """The contract type in words: "a float64 ndarray", "a minigrad Tensor", "a list"."""
    found = _TYPE.match(contract)
    if found is None:
        return contract
    kind, dtype = found["kind"], found["dtype"]
    if kind in _ARRAYS or kind in _BUILTINS:
        return _article(f"{dtype} {kind}" if dtype else kind)
    return f"a {package} {kind}"


def described_words(described: Mapping) -> str:
    """A returned type in words: "an ndarray (float64)", "a list", "a torch.Tensor (float32)"."""
    classes = [c for c in described.get("classes") or [] if isinstance(c, str)]
    name = classes[0] if classes else "an object of no class"
    name = {"numpy.ndarray": "ndarray", "NoneType": "None"}.get(name, name)
    dtype = described.get("dtype")
    words = name if name == "None" else _article(name)
    return f"{words} ({dtype})" if isinstance(dtype, str) and dtype else words


def _article(words: str) -> str:
    vowel = words[:1].lower() in "aeiou" or words.startswith("ndarray")  # "an en-d-array"
    return f"{'an' if vowel else 'a'} {words}"


def violations(contract: Iterable[tuple[str, str]], returned: object, package: str) -> list[str]:
    """One line per function of the `contract` ((name, type) pairs) whose calls returned
    another type, as the child recorded them (`returned`: {function: [descriptions]}; anything
    else counts as no record)."""
    if not isinstance(returned, dict):
        return []
    lines = []
    for name, expected in contract:
        wrong = [d for d in returned.get(name) or [] if isinstance(d, dict)
                 and not matches(expected, d, package)]
        if wrong:
            got = " or ".join(described_words(d) for d in wrong)
            lines.append(f"{name}() returned {got}; the contract says it returns "
                         f"{contract_words(expected, package)}")
    return lines
