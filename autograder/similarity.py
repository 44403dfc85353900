"""Suspiciously similar submissions: token shingles with identifiers and literals blinded
(renaming and comments do not hide a copy), the starter's shingles removed (every class shares
them), candidate pairs from datasketch MinHashLSH (near-linear in the class size), verified by
exact Jaccard similarity, and grouped into clusters (connected components)."""

from __future__ import annotations

import difflib
import io
import keyword
import tokenize
import zipfile
from dataclasses import dataclass
from pathlib import Path

SIMILARITY_THRESHOLD = 0.9
SHINGLE = 8
MIN_SHINGLES = 50
KEYWORDS = frozenset(keyword.kwlist)


def python_sources(path: Path) -> list[str]:
    if path.is_dir():
        return [p.read_text(errors="replace") for p in sorted(path.rglob("*.py"))
                if not p.is_symlink()]
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            return [zf.read(i).decode(errors="replace") for i in zf.infolist()
                    if i.filename.endswith(".py") and i.file_size < 2**20]
    return []


def normalized_tokens(text: str) -> list[str]:
    """Tokens with names -> N, numbers -> 0, strings -> S (keywords kept), no comments or
    layout."""
    tokens: list[str] = []
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENDMARKER)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in skip:
                continue
            if tok.string in KEYWORDS:
                tokens.append(tok.string)
            else:
                tokens.append({tokenize.NAME: "N", tokenize.NUMBER: "0",
                               tokenize.STRING: "S"}.get(tok.type, tok.string))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return tokens


def code_shingles(path: Path) -> set[tuple[str, ...]]:
    shingles: set[tuple[str, ...]] = set()
    for text in python_sources(path):
        tokens = normalized_tokens(text)
        shingles |= {tuple(tokens[i:i + SHINGLE]) for i in range(len(tokens) - SHINGLE + 1)}
    return shingles


NUM_PERM = 128


@dataclass
class Cluster:
    """Submissions linked by similar pairs: members, the highest pair similarity, and the
    longest run of normalized tokens two members share."""

    members: list[str]
    similarity: float
    shared_tokens: int


def similar_pairs(submissions: dict[str, Path], starter: Path | None = None,
                  threshold: float = SIMILARITY_THRESHOLD) -> list[tuple[str, str, float]]:
    """(a, b, Jaccard similarity) of pairs at or above `threshold`, most similar first."""
    from datasketch import MinHash, MinHashLSH

    common = code_shingles(starter) if starter else set()
    shingles = {s: code_shingles(p) - common for s, p in submissions.items()}
    lsh = MinHashLSH(threshold=max(0.5, threshold - 0.2), num_perm=NUM_PERM)
    hashes = {}
    for name in sorted(shingles):
        if len(shingles[name]) < MIN_SHINGLES:
            continue
        m = MinHash(num_perm=NUM_PERM)
        m.update_batch([" ".join(sh).encode() for sh in shingles[name]])
        hashes[name] = m
        lsh.insert(name, m)
    pairs = set()
    for name, m in hashes.items():
        for other in lsh.query(m):
            if other != name:
                a, b = sorted((name, other))
                sa, sb = shingles[a], shingles[b]
                sim = len(sa & sb) / len(sa | sb)
                if sim >= threshold:
                    pairs.add((a, b, sim))
    return sorted(pairs, key=lambda p: (-p[2], p[0], p[1]))


def clusters(submissions: dict[str, Path], starter: Path | None = None,
             threshold: float = SIMILARITY_THRESHOLD) -> list[Cluster]:
    """Connected components of the similar pairs, largest first."""
    pairs = similar_pairs(submissions, starter, threshold)
    parent = {s: s for p in pairs for s in p[:2]}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b, _ in pairs:
        parent[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for s in parent:
        groups.setdefault(root(s), []).append(s)
    found = []
    for members in groups.values():
        members.sort()
        best = max(p for p in pairs if p[0] in members)
        found.append(Cluster(members, max(p[2] for p in pairs if p[0] in members),
                             longest_shared(submissions[best[0]], submissions[best[1]])))
    return sorted(found, key=lambda c: (-len(c.members), -c.similarity, c.members))


def longest_shared(a: Path, b: Path) -> int:
    """Length, in normalized tokens, of the longest fragment two submissions share."""
    ta = [t for text in python_sources(a) for t in normalized_tokens(text)]
    tb = [t for text in python_sources(b) for t in normalized_tokens(text)]
    match = difflib.SequenceMatcher(None, ta, tb, autojunk=False).find_longest_match()
    return match.size
