"""Task 4 (hidden): bytes_per_token on scripts where characters and bytes differ most."""

from common import corpus, make_tokenizer, tokenizer_fixture

from autograder.harness import graded
from bpe import bytes_per_token


def scripts_cases(rng):
    texts = [corpus(rng, 400, langs=(lang,)) for lang in ("en", "ja", "zh", "ru", "el")]
    texts += ["👨‍👩‍👧‍👦" * 5, "<|endoftext|>x<|endoftext|>", " " * 40]
    return {"fixture": tokenizer_fixture(rng, 2000, 300, ["<|endoftext|>"]), "texts": texts}


@graded(points=2, cases=scripts_cases)
def test_bytes_per_token_scripts(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    for i, text in enumerate(cases["texts"]):
        rec.close(f"bpt[{i}]", float(bytes_per_token(tok, text)), rtol=1e-6)  # a ratio: dtype free
