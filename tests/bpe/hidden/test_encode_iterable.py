"""Task 3 (hidden): encode_iterable fed one character at a time, and laziness: ids must start
flowing before the input is exhausted."""

from common import corpus, make_tokenizer, tokenizer_fixture

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


def lazy_cases(rng):
    return {"fixture": tokenizer_fixture(rng, 1000, 200), "lines": corpus(rng, 2000)}


@graded(points=2, cases=lazy_cases)
def test_iterable_is_lazy(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    lines = cases["lines"].splitlines(keepends=True)
    consumed = 0

    def feed():
        nonlocal consumed
        for line in lines:
            consumed += 1
            yield line

    it = tok.encode_iterable(feed())
    first = next(it, None)
    rec.exact("first_id_before_half_the_input", consumed < len(lines) // 2)
    rec.exact("ids", [first, *it])
