"""Task 2: Tokenizer.encode / decode. encode is judged against tiktoken.Encoding built from the
same ranks and pattern (parent-side check `equals_tiktoken`); decode by round trips and by
partial UTF-8 (U+FFFD); special tokens, including overlapping ones."""

from common import corpus, make_tokenizer, tokenizer_fixture

from autograder.harness import graded

EDGE_TEXTS = ["", " ", "  ", "\n", "\n\n\n", "   \n\n  x", "hello world", "can't we'll I'VE",
              "日本語のテキストです", "👩‍💻👍🏽🇩🇪 🙂🙂", "x  \t\n y", "1234567890", "a\r\nb",
              "   leading and trailing   ", "e\u0301 n\u0303"]


def tiktoken_cases(rng):
    specials = ["<|endoftext|>", "<|pad|>"]
    texts = EDGE_TEXTS + [corpus(rng, int(n)) for n in (20, 100, 400)]
    texts += ["a<|endoftext|>b", "<|endoftext|><|endoftext|>", "<|pad|> <|endoftext|>\n\n",
              corpus(rng, 50) + "<|endoftext|>" + corpus(rng, 50)]
    # ids permuted as in GPT-2's vocab (ids do not follow merge order): ranks come from merges
    return {"fixture": tokenizer_fixture(rng, 1500, 300, specials, permute_ids=True),
            "texts": texts}


@graded(points=5, cases=tiktoken_cases)
def test_encode_matches_tiktoken(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    for i, text in enumerate(cases["texts"]):
        rec.check(f"ids[{i}]", tok.encode(text), check="equals_tiktoken")


def round_trip_cases(rng):
    texts = EDGE_TEXTS + [corpus(rng, 200), "x<|endoftext|>y"]
    return {"fixture": tokenizer_fixture(rng, 1500, 300, ["<|endoftext|>"]), "texts": texts}


@graded(points=3, cases=round_trip_cases)
def test_decode_round_trip(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    for i, text in enumerate(cases["texts"]):
        rec.exact(f"text[{i}]", tok.decode(tok.encode(text)))


def partial_utf8_cases(rng):
    fixture = tokenizer_fixture(rng, 1500, 300)
    ids = {t: int(i) for i, t in fixture["vocab"]}
    # a random emoji (four bytes), CJK ideograph (three bytes), letters, and a byte that
    # never occurs in UTF-8
    emoji = chr(int(rng.integers(0x1F600, 0x1F650))).encode()
    cjk = chr(int(rng.integers(0x4E00, 0x9FA0))).encode()
    a, o, k = (bytes([int(c)]) for c in rng.integers(ord("a"), ord("z") + 1, size=3))
    byte_seqs = [
        [cjk[:1]],  # a lead byte alone
        [cjk[:1], cjk[1:2]],  # two bytes of a three-byte character
        [a, emoji[:1], emoji[1:2], emoji[2:3]],  # a truncated four-byte emoji
        [emoji[1:2]],  # a continuation byte alone
        [bytes([int(rng.integers(0xF8, 0x100))]), o, k],  # a byte that never occurs in UTF-8
        [cjk[:1], cjk[1:2], cjk[2:3], emoji[:1]],  # a whole character, then a cut one
    ]
    return {"fixture": fixture, "id_lists": [[ids[b] for b in seq] for seq in byte_seqs]}


@graded(points=3, cases=partial_utf8_cases)
def test_decode_partial_utf8(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    for i, ids in enumerate(cases["id_lists"]):
        text = rec.raises(f"raises[{i}]", tok.decode, ids)
        rec.exact(f"text[{i}]", text)


def overlapping_special_cases(rng):
    # Given shortest first: the tokenizer must still prefer the longest match at a position.
    specials = ["<|a|>", "<|a|><|b|>", "<|b|>"]
    texts = ["x<|a|><|b|>y", "<|a|><|a|><|b|>", "<|a|><|b", "<|b|><|a|>", "<|a|> <|b|>",
             "<|a|><|b|><|b|>", "<<|a|>>", "no specials here", "<|a|", "<|a|><|b|><|a|><|b|>"]
    return {"fixture": tokenizer_fixture(rng, 1500, 200, specials), "texts": texts}


@graded(points=3, cases=overlapping_special_cases)
def test_special_tokens_overlapping(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    for i, text in enumerate(cases["texts"]):
        rec.exact(f"ids[{i}]", tok.encode(text))
