"""Text that is safe to write: the one renderer every string from a submission passes through
before any sink (the terminal, report.txt, results.json, instructor.json, grades.csv,
canvas.csv, the class report in Markdown and HTML, notebooks).

A submission chooses its exception messages, its output, its file and folder names. Written
raw, such text can command the reader's terminal (ESC sequences: OSC 52 writes the clipboard,
OSC 0 sets the window title, CSI moves the cursor and erases what was written), reorder what a
line shows (bidi embeddings, overrides and isolates), hide characters (zero-width spaces and
joiners, the BOM, invisible fillers) or break a strict UTF-8 reader (lone surrogates: a file
name that is not UTF-8 reaches Python as `os.fsdecode(b"\\xff") == "\\udcff"`, and a child's
JSON may carry `"\\ud800"`). `visible` makes all of them inert and visible: each such character
is replaced by its escape, so the reader sees what was there and nothing acts on it:

- a surrogate-escaped byte U+DC80..U+DCFF (an undecodable byte 0xNN of a name) by `\\xNN`;
- other characters below U+0100 (C0 controls, DEL, C1 controls) by `\\xNN` (`\\x1b` for ESC),
  except `\\n`, `\\r` and `\\t`, which `one_line` writes as those two-character escapes and
  `visible` keeps `\\n` and `\\t` as they are (multi-line text stays multi-line);
- every other one (format characters, line and paragraph separators, other surrogates,
  invisible fillers) by `\\uNNNN` or `\\UNNNNNNNN`.

The escaped set is INERT: every code point of Unicode's categories Cc, Cf, Cs, Zl and Zp
(test_safe_text proves the pattern covers them) plus the fillers that render as nothing.
Everything else (letters of any script, emoji, symbols) is unchanged. The result always
encodes as strict UTF-8. Format-specific escaping (Markdown, HTML, CSV formulas, rich markup)
happens after this, at the sink.
"""

from __future__ import annotations

import json
import os
import re

# Cc, Cf, Cs, Zl, Zp (Unicode 14; whole blocks where a block is only format characters) and
# the characters that render as nothing: U+034F (combining grapheme joiner), U+115F and U+1160
# (Hangul choseong and jungseong fillers), U+17B4 and U+17B5 (Khmer inherent vowels), U+3164
# and U+FFA0 (Hangul fillers), variation selectors U+180B..U+180D, U+FE00..U+FE0F,
# U+E0100..U+E01EF.
INERT = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u115f\u1160\u17b4\u17b5\u180b-\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164"
    "\ud800-\udfff\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]")
_KEPT = frozenset("\n\t")  # what multi-line text keeps as it is
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape(ch: str) -> str:
    """The visible escape of one character of INERT (see the module)."""
    code = ord(ch)
    if ch in _NAMED:
        return _NAMED[ch]
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte (os.fsdecode's surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _multi_line(match: re.Match) -> str:
    ch = match.group()
    return ch if ch in _KEPT else escape(ch)


def visible(text: str) -> str:
    """`text` inert (see the module): every character of INERT but newline and tab replaced
    by its visible escape; the rest unchanged. Always strict UTF-8."""
    return INERT.sub(_multi_line, str(text))


def one_line(text: str) -> str:
    """`text` inert and on one line: as `visible`, with newline, carriage return and tab
    written as `\\n`, `\\r`, `\\t` too (names, CSV cells, table cells)."""
    return INERT.sub(lambda m: escape(m.group()), str(text))


def name(path: os.PathLike | str | bytes) -> str:
    """A file or folder name (str, bytes or path) as displayable text on one line:
    `b"a\\xff.py"` and `Path(os.fsdecode(b"a\\xff.py"))` both give `a\\xff.py`."""
    return one_line(os.fsdecode(path))


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
    """`data` as JSON encoded in strict UTF-8 (every string made inert by `clean` first; other
    non-ASCII characters kept as they are); raises ValueError for NaN or infinity (not
    JSON)."""
    text = json.dumps(clean(data), indent=indent, ensure_ascii=False, allow_nan=False)
    return text.encode("utf-8")  # strict: cannot fail after clean()
