"""Task 3 (hidden): encode_iterable fed one character at a time, and laziness: ids must start
flowing before half of a 1.26 MB input has been read."""

import itertools

from common import corpus, generated_lines, make_tokenizer, tokenizer_fixture

from autograder.harness import graded


def char_cases(rng):
    specials = ["<|endoftext|>", "<|end|>", "<|endoftext|><|end|>"]
    texts = [corpus(rng, 150), "x'll 've're\n\n\n\n  \t\t  y", "<|end|><|endoftext|><|end|>",
             "<|endoftext|" + "\n" * 7 + "<|end|", corpus(rng, 40) + "<|endoftext|><|end|>",
             "   👩‍💻   \n  \n"]
    return {"fixture": tokenizer_fixture(rng, 1500, 300, specials), "texts": texts}


@graded(points=5, cases=char_cases)
def test_iterable_char_by_char(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    for i, text in enumerate(cases["texts"]):
        rec.exact(f"ids[{i}]", list(tok.encode_iterable(iter(text))))


# Longer than any holdback the public memory test allows: a streaming encoder that passes it
# (peak traced allocation below 512 KiB) holds back less than half of this input, however much
# text it chooses to buffer (the handout leaves that free).
N_LAZY_LINES = 18_000  # about 1.26 MB of text, generated lazily; half of it is over 600 KB
N_FIRST_IDS = 3000  # the ids recorded (the rest of the input is never read)


def lazy_cases(rng):
    words = sorted(set(corpus(rng, 400).split()))[:150]
    return {"fixture": tokenizer_fixture(rng, 1000, 200), "words": words,
            "seed": int(rng.integers(2**31))}


@graded(points=2, cases=lazy_cases, timeout=60)
def test_iterable_is_lazy(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    consumed = 0

    def feed():
        nonlocal consumed
        for line in generated_lines(cases["words"], cases["seed"], N_LAZY_LINES):
            consumed += 1
            yield line

    it = tok.encode_iterable(feed())
    first = next(it, None)
    rec.exact("first_id_before_half_the_input", consumed < N_LAZY_LINES // 2)
    rec.exact("first_ids", [first, *itertools.islice(it, N_FIRST_IDS - 1)])
