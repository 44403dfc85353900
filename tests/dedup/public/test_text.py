"""Task 1: normalize, shingles, jaccard. Exact values: the spec fixes all three."""

from common import random_text

from autograder.harness import graded
from dedup import jaccard, normalize, shingles

TRICKY = [
    "Hello World",
    "  Hello   World  ",
    "HELLO\tworld\n",
    "Ｈｅｌｌｏ　Ｗｏｒｌｄ",  # fullwidth letters and an ideographic space (NFKC -> ASCII)
    "hello\u00a0world",  # no-break space: NFKC makes it a space
    "ﬁne ﬂour",  # ligatures fi, fl
    "x² + y²",  # superscripts
    "Straße STRASSE",
    "Ⅻ o'clock, ½ past",
    "tab\t\tand\r\nnewline\x0bvertical\x0cfeed",
    "",
    "   ",
    "Café vs Cafe\u0301",  # precomposed vs combining accent: NFKC composes
    "ÀÉÎÕÜ ñ",
]

WORDS = ["the", "The", "THE", "cat", "Cat,", "sat", "on", "mat.", "ﬁsh", "Ｆｉｓｈ", "naïve", "x²"]
SPACES = [" ", "  ", "\t", "\n", "\u00a0", "\u3000", " \r\n "]


def text_cases(rng):
    return {"texts": TRICKY + [random_text(rng, WORDS, SPACES, int(rng.integers(0, 12))) for _ in range(12)]}


def shingle_cases(rng):
    out = []
    for n in (1, 2, 3, 5, 5, 5, 13):
        for n_words in (0, n - 1, n, n + 1, 3 * n):
            out.append({"text": random_text(rng, WORDS, SPACES, max(n_words, 0)), "n": n})
    return out


def jaccard_cases(rng):
    out = []
    for _ in range(10):
        a = rng.integers(0, 40, size=int(rng.integers(1, 30))).tolist()
        b = rng.integers(0, 40, size=int(rng.integers(1, 30))).tolist()
        out.append({"a": a, "b": b})
    out.append({"a": [1, 2, 3], "b": [1, 2, 3]})
    out.append({"a": [1, 2], "b": [3, 4]})
    return out


@graded(points=2, cases=text_cases)
def test_normalize(rec, cases):
    for i, text in enumerate(cases["texts"]):
        rec.exact(f"normalize[{i}]", normalize(text))


@graded(points=2, cases=shingle_cases)
def test_shingles(rec, cases):
    for i, c in enumerate(cases):
        rec.exact(f"shingles[{i}]", sorted(shingles(c["text"], n=c["n"])))


@graded(points=1, cases=jaccard_cases)
def test_jaccard(rec, cases):
    for i, c in enumerate(cases):
        rec.close(f"jaccard[{i}]", float(jaccard(set(c["a"]), set(c["b"]))), atol=1e-6)  # dtype free


def default_n_cases(rng):
    """Seven and four random words, mixed case, irregular whitespace."""
    words = ["".join(rng.choice(list("abcdefghijKLMNOP"), size=int(rng.integers(2, 7))))
             for _ in range(7)]
    gaps = [str(rng.choice([" ", "  ", "\t", " \n "])) for _ in range(6)]
    return {"text": "".join(w + g for w, g in zip(words, gaps)) + words[-1],
            "four": " ".join(words[:4])}


@graded(points=1, cases=default_n_cases)
def test_shingles_default_n(rec, cases):
    text = cases["text"]
    rec.exact("default_n", sorted(shingles(text)))
    rec.exact("four_words", sorted(shingles(cases["four"])))
    rec.close("self_jaccard", float(jaccard(shingles(text), shingles(text.upper()))), atol=1e-6)

