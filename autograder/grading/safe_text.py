"""Text that is safe to write: every string the grader writes (results.json, the terminal,
grades.csv, the class report) encodes as strict UTF-8.

A file name that is not UTF-8 reaches Python as a str holding lone surrogates
(`os.fsdecode(b"\\xff")` is `"\\udcff"`), and a child's JSON events may carry `"\\ud800"`
escapes. Neither encodes as UTF-8: a strict JSON reader rejects such a results.json. Here every
lone surrogate is replaced by a visible escape: a surrogate-escaped byte U+DC80..U+DCFF (what
the file system's undecodable byte 0xNN became) by `\\xNN`, any other surrogate by `\\uNNNN`.
"""

from __future__ import annotations

import json
import os
import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with each lone surrogate replaced by its visible escape (see the module); other
    characters unchanged. The result always encodes as strict UTF-8."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return _SURROGATE.sub(_escape, text)


def name(path: os.PathLike | str | bytes) -> str:
    """A file or folder name (str, bytes or path) as displayable text: `b"a\\xff.py"` and
    `Path(os.fsdecode(b"a\\xff.py"))` both give `a\\xff.py`."""
    return visible(os.fsdecode(path))


def clean(data: object) -> object:
    """`data` (JSON-like: dicts, lists, strings, numbers) with every string, keys included,
    passed through `visible`."""
    if isinstance(data, str):
        return visible(data)
    if isinstance(data, dict):
        return {clean(k) if isinstance(k, str) else k: clean(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [clean(v) for v in data]
    return data


def utf8_json(data: object, indent: int | None = 2) -> bytes:
    """`data` as JSON encoded in strict UTF-8 (non-ASCII characters kept as they are, lone
    surrogates escaped visibly first); raises ValueError for NaN or infinity (not JSON)."""
    text = json.dumps(clean(data), indent=indent, ensure_ascii=False, allow_nan=False)
    return text.encode("utf-8")  # strict: cannot fail after clean()
