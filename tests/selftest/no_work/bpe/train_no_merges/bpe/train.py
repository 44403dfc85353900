# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""Task 1: train a byte-level BPE."""

import heapq
from collections import Counter, defaultdict
from itertools import pairwise

from .pretokenize import pretokens, split_on_specials


class _Greatest:
    """A helper you may use (or delete): a heap key that pops the lexicographically greatest
    pair first (heapq is a min-heap). Pairs compare as tuples of two byte strings:
    (b"a", b"z") < (b"ab", b"c")."""

    __slots__ = ("pair",)

    def __init__(self, pair: tuple[bytes, bytes]):
        ### BEGIN SOLUTION
        self.pair = pair
        ### END SOLUTION

    def __lt__(self, other: "_Greatest") -> bool:
        ### BEGIN SOLUTION
        return self.pair > other.pair
        ### END SOLUTION


def _merge(word: list[bytes], pair: tuple[bytes, bytes]) -> list[bytes]:
    """A helper you may use (or delete): `word` (a list of tokens) with every non-overlapping
    occurrence of `pair` merged into one token, left to right."""
    ### BEGIN SOLUTION
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out
    ### END SOLUTION


def train_bpe(
    text: str, vocab_size: int, special_tokens: list[str] = []  # noqa: B006 (never mutated)
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Train byte-level BPE on `text`.

    Args:
        text: the training corpus.
        vocab_size: the final vocabulary size, counting the 256 single bytes, the special
            tokens and the merges. Stop when it is reached or when no pair is left.
        special_tokens: strings that split the text and are never merged.

    Returns:
        vocab: dict[int, bytes] — ids 0-255 are the single bytes (vocab[i] == bytes([i])),
            then the special tokens (UTF-8) in the given order, then one id per merge, in
            merge order (the token of a merge (a, b) is a + b).
        merges: list[tuple[bytes, bytes]] — the merged pairs in the order they were made.

    Rules:
        - Pre-tokenize with the GPT-2 pattern (pretokenize.pretokens) after splitting on the
          special tokens (pretokenize.split_on_specials); never merge across pre-tokens.
        - Each step merges the most frequent adjacent pair (counted over all pre-tokens,
          weighted by how often each occurs). Ties go to the lexicographically GREATEST pair,
          compared as a tuple of two byte strings: (b"ab", b"c") > (b"a", b"z").
        - Update pair counts incrementally (only the words containing the merged pair
          change): a 1 MB corpus must train to 1,000 merges in seconds, not minutes.
    """
    vocab = {i: bytes([i]) for i in range(256)}
    for s in special_tokens:
        vocab[len(vocab)] = s.encode("utf-8")
    return vocab, []
