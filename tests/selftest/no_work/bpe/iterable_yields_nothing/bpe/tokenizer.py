# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""Tasks 2 and 3: encode text with a trained BPE, decode ids, and stream."""

from collections.abc import Iterable, Iterator
from itertools import pairwise

from .pretokenize import pretokens, split_on_specials
from .train import _merge

_CACHE_SIZE = 4096  # pre-token -> ids; cleared when full, so memory stays bounded


class Tokenizer:
    """Byte-level BPE tokenizer.

    Args:
        vocab: dict[int, bytes], id -> token bytes. Any id layout (e.g. GPT-2's, where ids
            are not byte values and not in merge order).
        merges: list[tuple[bytes, bytes]] in rank order: merges[0] has the lowest rank.
        special_tokens: list[str] | None; those missing from vocab are appended with new ids
            (max id + 1, max id + 2, ... in the given order).
    """

    def __init__(
        self,
        vocab: dict[int, bytes],
        merges: list[tuple[bytes, bytes]],
        special_tokens: list[str] | None = None,
    ):
        ### BEGIN SOLUTION
        self.vocab = dict(vocab)
        self.special_tokens = list(special_tokens or [])
        for s in self.special_tokens:
            if s.encode("utf-8") not in self.vocab.values():
                self.vocab[max(self.vocab, default=-1) + 1] = s.encode("utf-8")
        self.ids = {b: i for i, b in self.vocab.items()}
        self.ranks = {pair: r for r, pair in enumerate(merges)}
        self._cache: dict[str, list[int]] = {}
        # Streaming holds back this many characters: enough to finish any special token and
        # the regex's look-ahead (contractions like "'ll" need 3 characters).
        self._holdback = max((len(s) for s in self.special_tokens), default=0) + 4
        ### END SOLUTION

    # ---- private helpers: a suggested split of the work (use, change or delete them) --------

    def _encode_pretoken(self, pretoken: str) -> list[int]:
        """Ids of one pre-token: apply merges to it, lowest rank first, until none applies."""
        ### BEGIN SOLUTION
        if pretoken in self._cache:
            return self._cache[pretoken]
        word = [bytes([b]) for b in pretoken.encode("utf-8")]
        while len(word) > 1:
            pair = min(pairwise(word), key=lambda p: self.ranks.get(p, float("inf")))
            if pair not in self.ranks:
                break
            word = _merge(word, pair)
        ids = [self.ids[t] for t in word]
        if len(self._cache) >= _CACHE_SIZE:
            self._cache.clear()
        self._cache[pretoken] = ids
        return ids
        ### END SOLUTION

    def _pieces(self, text: str) -> Iterator[tuple[str, bool]]:
        """(piece, is_special) in order: special tokens and pre-tokens of the text between."""
        ### BEGIN SOLUTION
        for chunk, is_special in split_on_specials(text, self.special_tokens):
            if is_special:
                yield chunk, True
            else:
                for p in pretokens(chunk):
                    yield p, False
        ### END SOLUTION

    def _piece_ids(self, piece: str, is_special: bool) -> list[int]:
        """The ids of one piece of `_pieces`."""
        ### BEGIN SOLUTION
        if is_special:
            return [self.ids[piece.encode("utf-8")]]
        return self._encode_pretoken(piece)
        ### END SOLUTION

    def encode(self, text: str) -> list[int]:
        """Token ids of `text`.

        Special tokens are matched first (leftmost, then the longest at that position) and
        each becomes its own id. The text between them is split into GPT-2 pre-tokens; each
        pre-token's UTF-8 bytes are merged by rank: repeatedly merge the adjacent pair with
        the lowest rank in `merges`, until no pair of the pre-token is in `merges`.
        """
        ### BEGIN SOLUTION
        ids = []
        for piece, is_special in self._pieces(text):
            ids.extend(self._piece_ids(piece, is_special))
        return ids
        ### END SOLUTION

    def encode_iterable(self, lines: Iterable[str]) -> Iterator[int]:
        """Yield exactly the ids of encode("".join(lines)), lazily, in bounded memory.

        Do not join the lines or collect the ids: emit what can no longer change and keep a
        bounded tail. Careful: a pre-token or special token can span two lines (a newline
        run "\\n" + "\\n\\n" is one pre-token), and the regex looks ahead ("'l" + "l").
        A bounded cache of encoded pre-tokens is fine.
        """
        return iter(())

    def decode(self, ids: list[int]) -> str:
        """Concatenate the tokens' bytes, then decode as UTF-8; invalid bytes (e.g. a
        character cut between tokens) become U+FFFD. Never raises for ids in the vocab."""
        ### BEGIN SOLUTION
        return b"".join(self.vocab[i] for i in ids).decode("utf-8", errors="replace")
        ### END SOLUTION
