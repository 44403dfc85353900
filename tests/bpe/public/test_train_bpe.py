"""Task 1: train_bpe — exact merge lists on seeded fixture corpora (multilingual text, emoji,
whitespace runs, ties, special tokens). Expected values are the reference solution's."""

from common import corpus, record_training, relabelled

from autograder.harness import graded

# The handout's worked example: " newest" x6 and " widest" x3 give (e, s) and (s, t) 9 each.
WORKED = ("low low low low low lower lower newest newest newest newest newest newest "
          "widest widest widest")


def worked_cases(rng):
    """The worked example, then its twin with the letters renamed (order kept)."""
    return [{"text": text, "vocab_size": 256 + 8, "specials": []}
            for text in (WORKED, relabelled(WORKED, rng))]


@graded(points=3, cases=worked_cases)
def test_train_worked_example(rec, cases):
    record_training(rec, "worked", cases)


def tie_cases(rng):
    # After (a, b), the pairs (ab, c) and (a, z) tie; as tuples (b"ab", b"c") > (b"a", b"z"),
    # while as joined bytes b"az" > b"abc": the tie-break must compare tuples.
    # Each is followed by a twin with the letters renamed (order kept: the same ties).
    tuple_vs_joined = "\n".join(["ab"] * 3 + ["abc"] * 4 + ["az"] * 4)
    cases = []
    for text, size in ((tuple_vs_joined, 256 + 4), ("cd ab ba dc cd ab ba dc xy yx", 256 + 12)):
        cases += [{"text": t, "vocab_size": size, "specials": []}
                  for t in (text, relabelled(text, rng))]
    return cases


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
