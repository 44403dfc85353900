# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""Task 1: normalization, word shingles, exact Jaccard similarity."""

import unicodedata


def normalize(text: str) -> str:
    """Return `text` normalized for near-duplicate detection, in this order:
    1. Unicode NFKC (`unicodedata.normalize("NFKC", ...)`): folds fullwidth letters, ligatures
       ("ﬁ" -> "fi"), superscripts and no-break spaces into their plain forms;
    2. `str.lower()`;
    3. every run of whitespace (as `str.split()` with no argument defines it: spaces, tabs,
       newlines, U+3000, U+2028, ...) collapsed to one space, and the ends stripped.

    Example: normalize("Ｈｅｌｌｏ\\u00a0\\tWORLD ") == "hello world".
    """
    return text


def shingles(text: str, n: int = 5) -> set[str]:
    """The set of word n-grams of normalize(text): tokens are the whitespace-separated words
    (punctuation stays attached), each n-gram joined by one space. A text of w >= n words has
    w - n + 1 n-grams (fewer in the set if some repeat); a text of fewer than n words has none.

    Example: shingles("a b c d", n=3) == {"a b c", "b c d"}.
    """
    return set()


def jaccard(a: set, b: set) -> float:
    """Exact Jaccard similarity |a & b| / |a | b| as a float in [0, 1].
    Two empty sets: your choice (tests never ask)."""
    return 0.0
