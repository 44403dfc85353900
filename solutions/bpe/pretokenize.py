"""Byte-level pre-tokenization: special tokens first, then the GPT-2 regex.

BPE never merges across the pieces made here, so a token can never span a special token
or two pre-tokens (e.g. "dog" and " cat" stay apart forever, whatever their frequency).
`pretokens` is given: use it as it is. `split_on_specials` is yours (task 2; task 1 needs it too).
"""

from collections.abc import Iterator

import regex

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
_PRETOKEN = regex.compile(GPT2_PATTERN)


def split_on_specials(text: str, special_tokens: list[str]) -> Iterator[tuple[str, bool]]:
    """Yield (piece, is_special) covering `text` in order.

    Special tokens are matched leftmost first, and the longest one at that position:
    with specials ["<|a|>", "<|a|><|b|>"], "<|a|><|b|>" is one special piece.
    Hint: regex.escape each token and join them with "|".
    """
    ### BEGIN SOLUTION
    if not special_tokens:
        if text:
            yield text, False
        return
    longest_first = sorted(special_tokens, key=len, reverse=True)
    specials = regex.compile("|".join(regex.escape(s) for s in longest_first))
    start = 0
    for m in specials.finditer(text):
        if m.start() > start:
            yield text[start : m.start()], False
        yield m.group(), True
        start = m.end()
    if start < len(text):
        yield text[start:], False
    ### END SOLUTION


def pretokens(text: str) -> list[str]:
    """Split ordinary text (no special tokens in it) into GPT-2 pre-tokens:
    pretokens("I've 2 dogs  \\n") == ["I", "'ve", " 2", " dogs", " ", " \\n"]."""
    return _PRETOKEN.findall(text)
