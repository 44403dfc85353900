"""Suspiciously similar submissions: token shingles with identifiers and literals blinded
(renaming and comments do not hide a copy), the shingles of every assignment's starter removed
(every class shares them, whichever packages a zip holds), candidate pairs from datasketch
MinHashLSH (near-linear in the class size), verified by exact Jaccard similarity, and grouped
into clusters (connected components). Byte-identical packages are identical whatever their
size (when they hold anything beyond the starters); other submissions under MIN_SHINGLES code
fragments beyond the starters are too small to compare by similarity and are listed as such.

Sources come from submissions.python_sources (intake's rules: regular .py files, size caps);
a submission that cannot be read is left out of the scan with its reason, never the class."""

from __future__ import annotations

import hashlib
import io
import keyword
import os
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from ..grading.intake import MAX_PY_FILE
from .submissions import Submission, SubmissionError, python_sources, read_regular, walk

SIMILARITY_THRESHOLD = 0.9
SHINGLE = 8
MIN_SHINGLES = 50  # below this, a Jaccard similarity says little: listed as too small
NUM_PERM = 128
KEYWORDS = frozenset(keyword.kwlist)
Shingle = tuple[str, ...]


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


def shingles_of(tokens: list[str]) -> set[Shingle]:
    return {tuple(tokens[i:i + SHINGLE]) for i in range(len(tokens) - SHINGLE + 1)}


def code_shingles(texts: list[str]) -> set[Shingle]:
    found: set[Shingle] = set()
    for text in texts:
        found |= shingles_of(normalized_tokens(text))
    return found


def starter_shingles(folders: list[Path]) -> set[Shingle]:
    """The shingles of every .py file under the starter folders (read by intake's rules)."""
    texts = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for rel, _ in walk(folder):
            data = read_regular(os.fsencode(folder) + b"/" + rel, MAX_PY_FILE) if rel.endswith(b".py") else None
            if data is not None:
                texts.append(data.decode("utf-8", errors="replace"))
    return code_shingles(texts)


@dataclass
class Cluster:
    """Submissions linked by similar pairs: members, the highest pair similarity, and the
    longest run of normalized tokens two members share (beyond the starter)."""

    members: list[str]
    similarity: float
    shared_tokens: int


@dataclass
class Scan:
    """The similarity scan of a class: clusters, the students left out (why), and notes."""

    clusters: list[Cluster]
    skipped: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    too_small: dict[str, int] = field(default_factory=dict)  # student -> fragments beyond starter


def similar_pairs(shingles: dict[str, set[Shingle]],
                  threshold: float = SIMILARITY_THRESHOLD) -> list[tuple[str, str, float]]:
    """(a, b, Jaccard similarity) of pairs at or above `threshold`, most similar first."""
    from datasketch import MinHash, MinHashLSH

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


def clusters(texts: dict[str, list[str]], common: set[Shingle] = frozenset(),
             threshold: float = SIMILARITY_THRESHOLD) -> list[Cluster]:
    """Connected components of the similar pairs (shingles in `common` removed), largest
    first."""
    return compare_class(texts, common, threshold)[0]


def identical_pairs(texts: dict[str, list[str]],
                    shingles: dict[str, set[Shingle]]) -> list[tuple[str, str, float]]:
    """(a, b, 1.0) for every two students whose sources are byte-identical and hold code
    beyond the starters (identical untouched starters are no copy)."""
    groups: dict[str, list[str]] = {}
    for student, ts in texts.items():
        if shingles[student]:
            digest = hashlib.sha256("\0".join(sorted(ts)).encode("utf-8", "replace")).hexdigest()
            groups.setdefault(digest, []).append(student)
    return [(a, b, 1.0) for members in groups.values() for i, a in enumerate(sorted(members))
            for b in sorted(members)[i + 1:]]


def compare_class(texts: dict[str, list[str]], common: set[Shingle] = frozenset(),
                  threshold: float = SIMILARITY_THRESHOLD
                  ) -> tuple[list[Cluster], dict[str, int]]:
    """(clusters, too small): the connected components of the similar and the identical pairs
    (shingles in `common` removed), largest first; and {student: code fragments beyond the
    starters} of those with fewer than MIN_SHINGLES that are in no identical pair."""
    tokens = {s: [normalized_tokens(t) for t in ts] for s, ts in texts.items()}
    shingles = {s: set().union(*map(shingles_of, ts)) - common for s, ts in tokens.items()}
    same = identical_pairs(texts, shingles)
    paired = {s for p in same for s in p[:2]}
    found = {(a, b): sim for a, b, sim in [*similar_pairs(shingles, threshold), *same]}
    pairs = sorted(((a, b, sim) for (a, b), sim in found.items()),
                   key=lambda p: (-p[2], p[0], p[1]))
    small = {s: len(sh) for s, sh in shingles.items()
             if len(sh) < MIN_SHINGLES and s not in paired}
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
    found_ = []
    for members in groups.values():
        members.sort()
        best = max((p for p in pairs if p[0] in members), key=lambda p: p[2])
        found_.append(Cluster(members, best[2],
                              longest_shared(tokens[best[0]], shingles[best[1]])))
    return sorted(found_, key=lambda c: (-len(c.members), -c.similarity, c.members)), small


def longest_shared(files: list[list[str]], other: set[Shingle]) -> int:
    """Length, in normalized tokens, of the longest run of consecutive shingles of `files` that
    all occur in `other` (linear time; a shared fragment of n >= SHINGLE tokens gives n)."""
    best = 0
    for tokens in files:
        run = 0
        for i in range(len(tokens) - SHINGLE + 1):
            run = run + 1 if tuple(tokens[i:i + SHINGLE]) in other else 0
            best = max(best, run + SHINGLE - 1 if run else 0)
    return best


def scan(submissions: list[Submission], starters: list[Path],
         threshold: float = SIMILARITY_THRESHOLD) -> Scan:
    """The class's clusters, with every starter's shingles removed; a submission whose sources
    cannot be read is skipped with its one-line reason."""
    texts, skipped, notes = {}, {}, {}
    for sub in submissions:
        try:
            texts[sub.student], note = python_sources(sub)
        except Exception as e:  # one unreadable submission is left out, never the class
            first = str(e).splitlines()[0] if str(e) else ""
            skipped[sub.student] = first if isinstance(e, SubmissionError) else \
                f"{type(e).__name__}: {first}".rstrip(": ")
            continue
        if note:
            notes[sub.student] = note
    found, small = compare_class(texts, starter_shingles(starters), threshold)
    return Scan(found, skipped, notes, small)
