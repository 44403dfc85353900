"""Suspiciously similar submissions: token shingles with identifiers and literals blinded
(renaming and comments do not hide a copy), compared by Jaccard similarity."""

from __future__ import annotations

import io
import itertools
import keyword
import tokenize
import zipfile
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


def similar_pairs(submissions: dict[str, Path]) -> list[tuple[str, str, float]]:
    shingles = {s: code_shingles(p) for s, p in submissions.items()}
    pairs = []
    for a, b in itertools.combinations(sorted(shingles), 2):
        sa, sb = shingles[a], shingles[b]
        if len(sa) < MIN_SHINGLES or len(sb) < MIN_SHINGLES:
            continue
        sim = len(sa & sb) / len(sa | sb)
        if sim >= SIMILARITY_THRESHOLD:
            pairs.append((a, b, sim))
    return sorted(pairs, key=lambda p: -p[2])
