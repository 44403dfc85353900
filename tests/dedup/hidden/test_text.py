"""Task 1 (hidden): more unicode and whitespace variants; shingles of normalized text."""

from common import random_text

from autograder.harness import graded
from dedup import normalize, shingles

VARIANTS = [
    "ＡＢＣ　ｄｅｆ",
    "İstanbul",  # dotted capital I: lower() gives 'i' + combining dot
    "ΣΊΣΥΦΟΣ",  # final sigma handling by str.lower()
    "e\u0301t\u00e9",  # combining vs precomposed accents
    "\u2028line\u2029para\x1e",
    "①②③ ㎏ ℃",  # enclosed digits and CJK compatibility
    "a\u200bb",  # zero-width space is not whitespace: kept
    "  LEADING and trailing\u3000",
    "Ⅳ Ⅸ ⅹ",
]

WORDS = ["Data", "DATA", "ｄａｔａ", "curation", "Curation.", "beats", "ﬁne-tuning", "½", "x³"]
SPACES = [" ", "\t", "\n\n", "\u00a0", "\u2003", "\u3000", "\u2028"]


def cases_hidden(rng):
    texts = VARIANTS + [random_text(rng, WORDS, SPACES, int(rng.integers(1, 15))) for _ in range(15)]
    return {"texts": texts, "ns": [int(rng.integers(1, 6)) for _ in texts]}


@graded(points=2, cases=cases_hidden)
def test_normalize_variants(rec, cases):
    for i, text in enumerate(cases["texts"]):
        rec.exact(f"normalize[{i}]", normalize(text))


@graded(points=2, cases=cases_hidden)
def test_shingles_variants(rec, cases):
    for i, (text, n) in enumerate(zip(cases["texts"], cases["ns"])):
        rec.exact(f"shingles[{i}]", sorted(shingles(text, n=n)))
