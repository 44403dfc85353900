"""Task 4 (hidden): bytes_per_token on scripts where characters and bytes differ most."""

from autograder.harness import graded
from bpe import Tokenizer, bytes_per_token


def fixtures():
    """The seeded corpus generators in public/test_fixtures.py (golden time only)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "public" / "test_fixtures.py"
    spec = importlib.util.spec_from_file_location("bpe_test_fixtures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_tokenizer(fixture):
    vocab = {int(i): t for i, t in fixture["vocab"]}
    return Tokenizer(vocab, [(a, b) for a, b in fixture["merges"]], fixture["specials"])


def scripts_cases(rng):
    fx = fixtures()
    texts = [fx.corpus(rng, 400, langs=(lang,)) for lang in ("en", "ja", "zh", "ru", "el")]
    texts += ["👨‍👩‍👧‍👦" * 5, "<|endoftext|>x<|endoftext|>", " " * 40]
    return {"fixture": fx.tokenizer_fixture(rng, 2000, 300, ["<|endoftext|>"]), "texts": texts}


@graded(points=2, cases=scripts_cases)
def test_bytes_per_token_scripts(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    for i, text in enumerate(cases["texts"]):
        rec.close(f"bpt[{i}]", float(bytes_per_token(tok, text)), rtol=1e-12)
