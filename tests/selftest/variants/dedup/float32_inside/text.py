# Variant dedup/float32_inside: jaccard, estimate_jaccard and candidate_probability computed in
# float32
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
    ### BEGIN SOLUTION
    text = unicodedata.normalize("NFKC", text).lower()
    return " ".join(text.split())
    ### END SOLUTION


def shingles(text: str, n: int = 5) -> set[str]:
    """The set of word n-grams of normalize(text): tokens are the whitespace-separated words
    (punctuation stays attached), each n-gram joined by one space. A text of w >= n words has
    w - n + 1 n-grams (fewer in the set if some repeat); a text of fewer than n words has none.

    Example: shingles("a b c d", n=3) == {"a b c", "b c d"}.
    """
    ### BEGIN SOLUTION
    words = normalize(text).split()
    return {" ".join(words[i : i + n]) for i in range(len(words) - n + 1)}
    ### END SOLUTION


def jaccard(a: set, b: set) -> float:
    """Exact Jaccard similarity |a & b| / |a | b| as a float in [0, 1].
    Two empty sets: your choice (tests never ask)."""
    import numpy as np

    union = len(a | b)
    return float(np.float32(len(a & b)) / np.float32(union)) if union else 0.0
