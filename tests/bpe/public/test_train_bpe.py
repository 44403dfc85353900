"""Task 1: train_bpe — exact merge lists on seeded fixture corpora (multilingual text, emoji,
whitespace runs, ties, special tokens). Expected values are the reference solution's."""

from common import corpus, record_training

from autograder.harness import graded

# The handout's worked example: " newest" x6 and " widest" x3 give (e, s) and (s, t) 9 each.
WORKED = ("low low low low low lower lower newest newest newest newest newest newest "
          "widest widest widest")


def worked_cases(rng):
    return [{"text": WORKED, "vocab_size": 256 + 8, "specials": []}]


@graded(points=3, cases=worked_cases)
def test_train_worked_example(rec, cases):
    record_training(rec, "worked", cases)


def tie_cases(rng):
    # After (a, b), the pairs (ab, c) and (a, z) tie; as tuples (b"ab", b"c") > (b"a", b"z"),
    # while as joined bytes b"az" > b"abc": the tie-break must compare tuples.
    tuple_vs_joined = "\n".join(["ab"] * 3 + ["abc"] * 4 + ["az"] * 4)
    return [
        {"text": tuple_vs_joined, "vocab_size": 256 + 4, "specials": []},
        {"text": "cd ab ba dc cd ab ba dc xy yx", "vocab_size": 256 + 12, "specials": []},
    ]


@graded(points=3, cases=tie_cases)
def test_train_tie_break(rec, cases):
    record_training(rec, "tie", cases)


def multilingual_cases(rng):
    return [{"text": corpus(rng, 3000), "vocab_size": 256 + 150, "specials": []}]


@graded(points=4, cases=multilingual_cases)
def test_train_multilingual(rec, cases):
    record_training(rec, "multilingual", cases)


def special_cases(rng):
    docs = [corpus(rng, int(n)) for n in rng.integers(5, 40, size=60)]  # short documents
    return [{"text": "<|endoftext|>".join(docs), "vocab_size": 256 + 1 + 80,
             "specials": ["<|endoftext|>"]}]


@graded(points=3, cases=special_cases)
def test_train_special_tokens(rec, cases):
    record_training(rec, "specials", cases)
