"""Encode text to token ids with a trained BPE, decode ids back to text, and stream."""

from collections.abc import Iterable, Iterator
from itertools import pairwise

from .pretokenize import pretokens, split_on_specials
from .train import _merge

_BUFFER_CHARS = 8_192  # characters collected before anything is emitted
_CACHE_SIZE = 4096  # pre-token -> ids; cleared when full, so memory stays bounded


class Tokenizer:
    """Byte-level BPE tokenizer.

    vocab: id -> bytes (any id layout); merges: pairs in rank order (lowest rank first);
    special_tokens: strings that are never split; ones missing from vocab get new ids.
    """

    def __init__(
        self,
        vocab: dict[int, bytes],
        merges: list[tuple[bytes, bytes]],
        special_tokens: list[str] | None = None,
    ):
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

    def _encode_pretoken(self, pretoken: str) -> list[int]:
        """Apply merges to one pre-token, lowest rank first, until none applies."""
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

    def _pieces(self, text: str) -> Iterator[tuple[str, bool]]:
        """(piece, is_special) in order: special tokens and pre-tokens of the text between."""
        for chunk, is_special in split_on_specials(text, self.special_tokens):
            if is_special:
                yield chunk, True
            else:
                for p in pretokens(chunk):
                    yield p, False

    def _piece_ids(self, piece: str, is_special: bool) -> list[int]:
        if is_special:
            return [self.ids[piece.encode("utf-8")]]
        return self._encode_pretoken(piece)

    def encode(self, text: str) -> list[int]:
        """Token ids of `text`; special tokens become their own id."""
        ids = []
        for piece, is_special in self._pieces(text):
            ids.extend(self._piece_ids(piece, is_special))
        return ids

    def encode_iterable(self, lines: Iterable[str]) -> Iterator[int]:
        """Another free choice: collect text until 8,192 characters are buffered, and only
        then emit the pieces that more text can no longer change (so ids arrive in bursts)."""
        buffer = ""
        for line in lines:
            buffer += line
            if len(buffer) < _BUFFER_CHARS:
                continue
            safe, done = len(buffer) - self._holdback, 0
            for piece, is_special in self._pieces(buffer):
                if done + len(piece) > safe:
                    break
                yield from self._piece_ids(piece, is_special)
                done += len(piece)
            buffer = buffer[done:]
        yield from self.encode(buffer)

    def decode(self, ids: list[int]) -> str:
        """Concatenate the tokens' bytes, then decode; invalid UTF-8 becomes U+FFFD."""
        return b"".join(self.vocab[i] for i in ids).decode("utf-8", errors="replace")
