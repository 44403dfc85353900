"""Task 4: bytes_per_token and attention_flops — why vocabulary size is an attention-cost
decision: more merges, fewer tokens per document, quadratically fewer attention FLOPs."""

from common import corpus, make_tokenizer, tokenizer_fixture

from autograder.harness import graded
from bpe import attention_flops, bytes_per_token


def bpt_cases(rng):
    texts = ["hello world, hello tokens", "日本語のテキストです東京", "🙂👍🏽🇩🇪👩‍💻",
             corpus(rng, 300), corpus(rng, 300, langs=("ru", "el"))]
    return {"fixture": tokenizer_fixture(rng, 1500, 300), "texts": texts}


@graded(points=3, cases=bpt_cases)
def test_bytes_per_token(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    for i, text in enumerate(cases["texts"]):
        rec.close(f"bpt[{i}]", float(bytes_per_token(tok, text)), rtol=1e-6)  # a ratio: dtype free


def flops_cases(rng):
    shapes = [[1, 1, 1], [1024, 768, 12], [2048, 12288, 96], [8192, 4096, 32]]
    shapes += [[int(rng.integers(1, 5000)), int(rng.integers(1, 4096)), int(rng.integers(1, 80))]
               for _ in range(4)]
    return shapes


@graded(points=2, cases=flops_cases)
def test_attention_flops(rec, cases):
    for i, (seq_len, d_model, n_layers) in enumerate(cases):
        # contract: SPEC 5.3 attention_flops = 4 seq_len^2 d_model n_layers, an exact count (an
        # integer; float64 holds it to 1e-16)
        rec.close(f"flops[{i}]", float(attention_flops(seq_len, d_model, n_layers)), rtol=1e-12)


def vocab_size_cases(rng):
    return {"fixture": tokenizer_fixture(rng, 3000, 400), "document": corpus(rng, 1500),
            "n_merges": [0, 50, 100, 200, 400]}


@graded(points=3, cases=vocab_size_cases)
def test_vocab_size_vs_attention(rec, cases):
    """The same document under growing vocabularies: tokens, then attention FLOPs of a
    GPT-2-small-sized model (d_model 768, 12 layers) over it."""
    for n in cases["n_merges"]:
        tok = make_tokenizer(cases["fixture"], n)
        seq_len = len(tok.encode(cases["document"]))
        rec.close(f"bpt[{n}]", float(bytes_per_token(tok, cases["document"])), rtol=1e-6)
        # contract: SPEC 5.3 attention_flops = 4 seq_len^2 d_model n_layers, an exact count
        rec.close(f"flops[{n}]", float(attention_flops(seq_len, 768, 12)), rtol=1e-12)
