"""Task 1: normalization, word shingles, exact Jaccard similarity."""

import unicodedata


def normalize(text: str) -> str:
    """NFKC, then `str.lower()`, then every whitespace run (as `str.split()` sees it) collapsed to
    one space, ends stripped. "Ｈｅｌｌｏ\\u00a0\\tWORLD " -> "hello world"."""
    text = unicodedata.normalize("NFKC", text).lower()
    return " ".join(text.split())


def shingles(text: str, n: int = 5) -> set[str]:
    """The set of word n-grams of `normalize(text)` (whitespace tokens, punctuation kept), each
    joined by one space. A text of fewer than n words has none."""
    words = normalize(text).split()
    return {" ".join(words[i : i + n]) for i in range(len(words) - n + 1)}


def jaccard(a: set, b: set) -> float:
    """|a & b| / |a | b|. Two empty sets: 0.0 (an empty document is never a duplicate)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0
