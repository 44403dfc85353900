"""Task 2 (hidden): encode against tiktoken on more text, any id layout (GPT-2 style), special
tokens missing from the vocab, specials at the edges and repeated."""

from common import corpus, make_tokenizer, tokenizer_fixture

from autograder.harness import graded

MORE_TEXTS = ["\n\n\n\n\n\nx", "x\n\n\n\n", " \t \t ", "Ünïcödé façade, naïve café",
              "Привет, мир! Как дела?", "αβγ δεζ", "東京は日本の首都です。", "🏳️‍🌈🏳️‍⚧️👨‍👩‍👧‍👦",
              "it's they're you've he'd I'm", "$100.00 + 3.5% = ?", "tab\tsep\tvalues\n",
              "     ", "a" * 50, "ab" * 30, "\u00a0nbsp\u2009thin\u3000ideographic"]


def tiktoken_cases(rng):
    specials = ["<|endoftext|>", "<|fim_prefix|>", "[SEP]"]
    texts = MORE_TEXTS + [corpus(rng, int(n)) for n in (30, 150, 400)]
    texts += ["[SEP]" + corpus(rng, 40) + "<|fim_prefix|>\n\n<|endoftext|>",
              "<|endoftext|>[SEP]<|endoftext|>", "x[SEP ] [SEP]"]
    return {"fixture": tokenizer_fixture(rng, 3000, 500, specials), "texts": texts}


@graded(points=5, cases=tiktoken_cases)
def test_encode_matches_tiktoken_hidden(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    for i, text in enumerate(cases["texts"]):
        rec.check(f"ids[{i}]", tok.encode(text), check="equals_tiktoken")


def layout_cases(rng):
    texts = MORE_TEXTS[:8] + [corpus(rng, 300), "<|endoftext|>" + corpus(rng, 30)]
    fixture = tokenizer_fixture(rng, 1500, 300, ["<|endoftext|>"], permute_ids=True)
    return {"fixture": fixture, "texts": texts}


@graded(points=4, cases=layout_cases)
def test_encode_any_id_layout(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    for i, text in enumerate(cases["texts"]):
        ids = tok.encode(text)
        rec.check(f"ids[{i}]", ids, check="equals_tiktoken")
        rec.exact(f"text[{i}]", tok.decode(ids))


def appended_special_cases(rng):
    specials = ["<|endoftext|>", "<|user|>"]
    texts = ["<|user|>hi<|endoftext|>", "<|endoftext|>", "a <|user|> b", "<|user|><|user|>"]
    # a drawn number of merges: the appended specials' ids differ from one input set to another
    fixture = tokenizer_fixture(rng, 1000, int(rng.integers(80, 121)), specials,
                                specials_in_vocab=False)
    return {"fixture": fixture, "texts": texts}


@graded(points=4, cases=appended_special_cases)
def test_special_tokens_appended(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    for i, text in enumerate(cases["texts"]):
        ids = tok.encode(text)
        rec.exact(f"ids[{i}]", ids)
        rec.exact(f"text[{i}]", tok.decode(ids))


def edge_special_cases(rng):
    specials = ["<|endoftext|>", "<|end|>", "<|endoftext|><|end|>"]
    texts = ["<|end|>", "<|endoftext|><|end|><|end|>", "  <|end|>  ", "\n\n<|endoftext|>\n\n",
             "<|endo", "<|end|>oftext|>", "<|endoftext|><|endoftext|><|end|>", "a<|end|>\n<|end|>"]
    return {"fixture": tokenizer_fixture(rng, 1000, 150, specials), "texts": texts}


@graded(points=3, cases=edge_special_cases)
def test_special_tokens_edges(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    for i, text in enumerate(cases["texts"]):
        rec.exact(f"ids[{i}]", tok.encode(text))
