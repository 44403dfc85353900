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
        raise NotImplementedError

    # ---- private helpers: a suggested split of the work (use, change or delete them) --------

    def _encode_pretoken(self, pretoken: str) -> list[int]:
        """Ids of one pre-token: apply merges to it, lowest rank first, until none applies."""
        raise NotImplementedError

    def _pieces(self, text: str) -> Iterator[tuple[str, bool]]:
        """(piece, is_special) in order: special tokens and pre-tokens of the text between."""
        raise NotImplementedError

    def _piece_ids(self, piece: str, is_special: bool) -> list[int]:
        """The ids of one piece of `_pieces`."""
        raise NotImplementedError

    def encode(self, text: str) -> list[int]:
        """Token ids of `text`.

        Special tokens are matched first (leftmost, then the longest at that position) and
        each becomes its own id. The text between them is split into GPT-2 pre-tokens; each
        pre-token's UTF-8 bytes are merged by rank: repeatedly merge the adjacent pair with
        the lowest rank in `merges`, until no pair of the pre-token is in `merges`.
        """
        raise NotImplementedError

    def encode_iterable(self, lines: Iterable[str]) -> Iterator[int]:
        """Yield exactly the ids of encode("".join(lines)), lazily, in bounded memory.

        Do not join the lines or collect the ids: emit what can no longer change and keep a
        bounded tail. Careful: a pre-token or special token can span two lines (a newline
        run "\\n" + "\\n\\n" is one pre-token), and the regex looks ahead ("'l" + "l").
        A bounded cache of encoded pre-tokens is fine.
        """
        raise NotImplementedError

    def decode(self, ids: list[int]) -> str:
        """Concatenate the tokens' bytes, then decode as UTF-8; invalid bytes (e.g. a
        character cut between tokens) become U+FFFD. Never raises for ids in the vocab."""
        raise NotImplementedError
