"""Parent-side checks for bpe (trusted; never run in the sandbox).

- equals_tiktoken: the observed ids equal tiktoken.Encoding built offline from the fixture's
  merges (rank = 256 + merge index) and the GPT-2 pattern, mapped to the fixture's ids.
- matches_hull_oracle: the observed unreachable rows equal an independent LP oracle (the dual
  problem: the best margin by which row i can beat every other row).
"""

import re

import numpy as np

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
_cache: dict = {}


def _index(name: str) -> int:
    return int(re.search(r"\[(\d+)\]", name).group(1))


def _ids_list(observed) -> str | None:
    if not isinstance(observed, list) or not all(type(i) is int for i in observed):
        return f"expected a list of int ids, got {type(observed).__name__}"
    return None


def _tiktoken_encoder(fixture: dict):
    """(encode(text) -> fixture ids) from tiktoken, built from the fixture's ranks."""
    key = repr((fixture["vocab"], fixture["merges"], fixture["specials"]))
    if key in _cache:
        return _cache[key]
    import tiktoken

    vocab = {int(i): bytes(t) for i, t in fixture["vocab"]}
    id_of = {t: i for i, t in vocab.items()}
    ranks = {bytes([b]): b for b in range(256)}
    for r, (a, b) in enumerate(fixture["merges"]):
        ranks[bytes(a) + bytes(b)] = 256 + r
    id_of_rank = {r: id_of[t] for t, r in ranks.items()}
    next_id = max(vocab) + 1
    specials = {}
    for k, s in enumerate(fixture["specials"]):
        if s.encode("utf-8") in id_of:
            sid = id_of[s.encode("utf-8")]
        else:
            sid, next_id = next_id, next_id + 1
        specials[s] = 10**7 + k
        id_of_rank[10**7 + k] = sid
    enc = tiktoken.Encoding(name=f"bpe_check_{len(_cache)}", pat_str=GPT2_PATTERN,
                            mergeable_ranks=ranks, special_tokens=specials)

    def encode(text: str) -> list[int]:
        return [id_of_rank[r] for r in enc.encode(text, allowed_special="all")]

    _cache[key] = encode
    return encode


def equals_tiktoken(observed, ctx) -> str | None:
    """ctx.inputs: {"fixture", "texts"}; the observation ids[i] encodes texts[i]."""
    bad = _ids_list(observed)
    if bad:
        return bad
    text = ctx.inputs["texts"][_index(ctx.name)]
    expected = _tiktoken_encoder(ctx.inputs["fixture"])(text)
    if observed == expected:
        return None
    k = next((j for j, (a, b) in enumerate(zip(observed, expected)) if a != b),
             min(len(observed), len(expected)))
    return (f"differs from tiktoken at token {k} (got {len(observed)} ids, expected "
            f"{len(expected)}): got {observed[k:k + 5]}, expected {expected[k:k + 5]} "
            f"for text {text[:60]!r}")


def hull_oracle(W: np.ndarray, margin_tol: float = 1e-7) -> list[int]:
    """Rows that cannot be the strict argmax: max m s.t. (w_i - w_j).h >= m for all j != i,
    |h|_inf <= 1, m <= 1; unreachable when the best margin m is ~0."""
    from scipy.optimize import linprog

    n, d = W.shape
    out = []
    for i in range(n):
        diffs = W[i] - np.delete(W, i, axis=0)  # (n-1, d)
        if len(diffs) == 0:
            continue
        c = np.r_[np.zeros(d), -1.0]  # variables: h (d), m; maximize m
        A_ub = np.c_[-diffs, np.ones(len(diffs))]  # m - diff.h <= 0
        res = linprog(c, A_ub=A_ub, b_ub=np.zeros(len(diffs)),
                      bounds=[(-1, 1)] * d + [(None, 1)])
        if res.status != 0 or -res.fun <= margin_tol:
            out.append(i)
    return out


def matches_hull_oracle(observed, ctx) -> str | None:
    """ctx.inputs: {"matrices"}; the observation rows[i] is for matrices[i]."""
    if not isinstance(observed, list) or not all(type(i) is int for i in observed):
        return f"expected a sorted list of int row indices, got {type(observed).__name__}"
    W = np.asarray(ctx.inputs["matrices"][_index(ctx.name)], dtype=float)
    key = ("hull", W.tobytes(), W.shape)
    if key not in _cache:
        _cache[key] = hull_oracle(W)
    expected = _cache[key]
    if observed == expected:
        return None
    missing = sorted(set(expected) - set(observed))[:8]
    extra = sorted(set(observed) - set(expected))[:8]
    return (f"got {len(observed)} rows, expected {len(expected)}; missing {missing}, "
            f"should not be there {extra}" + ("" if observed == sorted(observed) else
                                              "; the list must be sorted"))
