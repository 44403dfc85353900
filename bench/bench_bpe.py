"""bpe benchmark: training and encoding speed of the reference solution against the Rust peers,
measured in the same run on the same generated text.

- training: train_bpe on a ~1 MB seeded multilingual corpus to 1,000 merges, as a ratio to
  Hugging Face `tokenizers` (BpeTrainer + ByteLevel pre-tokenizer, the GPT-2 regex);
- encoding: Tokenizer.encode throughput (MB/s) as a ratio to tiktoken.Encoding built from the
  same ranks and pattern (encode_ordinary, one thread).

Usage: python bench/bench_bpe.py [--impl solutions] [--words 110000] [--lexicon 8000]
                                [--merges 1000]
"""

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def load_fixtures():
    path = ROOT / "tests" / "bpe" / "common.py"
    spec = importlib.util.spec_from_file_location("bpe_test_fixtures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def best_of(fn, repeats):
    best, out = float("inf"), None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def hf_train(text: str, vocab_size: int):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(text.splitlines(keepends=True), trainer=trainer)
    return tok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_impl = ROOT / "solutions" if (ROOT / "solutions" / "bpe").exists() else ROOT / "starter"
    ap.add_argument("--impl", default=str(default_impl), help="folder holding the bpe package")
    ap.add_argument("--words", type=int, default=110_000)
    ap.add_argument("--lexicon", type=int, default=8000, help="distinct words per language")
    ap.add_argument("--merges", type=int, default=1000)
    args = ap.parse_args()
    sys.path.insert(0, args.impl)
    import tiktoken

    from bpe import Tokenizer, train_bpe

    fx = load_fixtures()
    text = fx.corpus(np.random.default_rng(0), args.words, words_per_lang=args.lexicon)
    n_bytes = len(text.encode("utf-8"))
    vocab_size = 256 + args.merges
    print(f"corpus: {n_bytes / 1e6:.2f} MB, {args.merges} merges")

    t_ours, (vocab, merges) = best_of(lambda: train_bpe(text, vocab_size), 1)
    t_hf, _ = best_of(lambda: hf_train(text, vocab_size), 3)
    print(f"train   ours {t_ours:7.2f} s   HF tokenizers {t_hf:7.3f} s   "
          f"ours/HF = {t_ours / t_hf:6.1f}x slower   ({len(merges)} merges)")

    ranks = {t: i for i, t in vocab.items()}
    enc = tiktoken.Encoding(name="bench_bpe", pat_str=fx.GPT2_PATTERN, mergeable_ranks=ranks,
                            special_tokens={})
    t_enc, ids = best_of(lambda: Tokenizer(vocab, merges).encode(text), 2)  # a cold cache
    t_tik, ids_tik = best_of(lambda: enc.encode_ordinary(text), 3)
    assert ids == ids_tik, "encode differs from tiktoken"
    t_it, _ = best_of(lambda: sum(1 for _ in Tokenizer(vocab, merges).encode_iterable(
        text.splitlines(keepends=True))), 1)

    def mbs(seconds: float) -> float:
        return n_bytes / 1e6 / seconds

    print(f"encode  ours {mbs(t_enc):7.2f} MB/s   tiktoken {mbs(t_tik):7.2f} MB/s   "
          f"ours/tiktoken = {t_enc / t_tik:6.1f}x slower   (same ids: yes)")
    print(f"encode_iterable  ours {mbs(t_it):7.2f} MB/s   ({t_it / t_tik:.1f}x tiktoken's time)")
    print(f"bytes/token at {len(vocab)} tokens: {n_bytes / len(ids):.3f}")


if __name__ == "__main__":
    main()
