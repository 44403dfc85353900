"""Task 1 (hidden): train_bpe on more fixture corpora: random ties, larger multilingual corpora,
whitespace runs, overlapping special tokens, exhaustion of pairs."""

from common import corpus, record_training

from autograder.harness import graded


def random_tie_cases(rng):
    """Short words over a tiny alphabet, each repeated a few times: many exact ties."""
    out = []
    for _ in range(6):
        words = ["".join(rng.choice(list("abcdé"), size=int(rng.integers(2, 6))))
                 for _ in range(int(rng.integers(4, 12)))]
        text = " ".join(w for w in words for _ in range(int(rng.integers(1, 4))))
        out.append({"text": text, "vocab_size": 256 + 15, "specials": []})
    return out


@graded(points=4, cases=random_tie_cases)
def test_train_random_ties(rec, cases):
    record_training(rec, "ties", cases)


def large_cases(rng):
    return [
        {"text": corpus(rng, 4000), "vocab_size": 256 + 300, "specials": []},
        {"text": corpus(rng, 2000, langs=("ja", "zh", "ru")), "vocab_size": 256 + 200,
         "specials": []},
    ]


@graded(points=5, cases=large_cases)
def test_train_multilingual_large(rec, cases):
    record_training(rec, "large", cases)


def whitespace_cases(rng):
    pieces = ["\n", "\n\n", "\n\n\n", "  ", "   ", "\t", "\t\t", " \n ", "\r\n", "    "]
    words = ["if", "x", "return", "def", "=", "1", "(y)", ":"]
    text = "".join(str(rng.choice(words)) + str(rng.choice(pieces)) for _ in range(800))
    return [{"text": text, "vocab_size": 256 + 60, "specials": []}]


@graded(points=3, cases=whitespace_cases)
def test_train_whitespace_runs(rec, cases):
    record_training(rec, "whitespace", cases)


def overlapping_special_cases(rng):
    docs = [corpus(rng, 200) for _ in range(8)]
    seps = ["<|a|>", "<|a|><|b|>", "<|b|>", "<|a|><|a|>"]
    text = docs[0] + "".join(seps[i % 4] + d for i, d in enumerate(docs[1:]))
    return [{"text": text, "vocab_size": 256 + 2 + 60, "specials": ["<|a|>", "<|a|><|b|>"]},
            {"text": text, "vocab_size": 256 + 3 + 40,
             "specials": ["<|b|>", "<|a|>", "<|a|><|b|>"]}]


@graded(points=4, cases=overlapping_special_cases)
def test_train_overlapping_specials(rec, cases):
    record_training(rec, "specials", cases)


def exhaustion_cases(rng):
    """Texts whose pairs run out long before vocab_size: letters and lengths drawn."""
    a, b, c = (str(x) for x in rng.choice(list("abcdefghijklmnopqrstuvwxyz"), 3, replace=False))
    return [{"text": f"{a}{b} {a}{b} {a}{b}{a}{b}", "vocab_size": 1000, "specials": []},
            {"text": "", "vocab_size": 300, "specials": []},
            {"text": f"{a} {b} {c} ! ?", "vocab_size": 300, "specials": ["<s>"]},
            {"text": a * int(rng.integers(5, 12)), "vocab_size": 1000, "specials": []}]


@graded(points=2, cases=exhaustion_cases)
def test_train_stops_when_no_pairs(rec, cases):
    record_training(rec, "exhaust", cases)
