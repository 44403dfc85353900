"""bpe benchmark: training and encoding speed of the reference solution against the Rust peers,
measured in the same run on the same generated text.

- training: train_bpe on a ~1 MB seeded multilingual corpus to 1,000 merges, as a ratio to
  Hugging Face `tokenizers` (BpeTrainer + ByteLevel pre-tokenizer, the GPT-2 regex);
- encoding: Tokenizer.encode throughput (MB/s) as a ratio to tiktoken.Encoding built from the
  same ranks and pattern (encode_ordinary, one thread).

Usage: python bench/bench_bpe.py [--impl solutions] [--words 110000] [--lexicon 8000]
                                [--merges 1000]

On a package that is not finished (a stub still raises NotImplementedError, no bpe package in
--impl) or whose results are wrong, it prints one line naming the handout task (read from the
test file's docstring) and exits 1, never a traceback.
"""

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from benchrows import guarded, print_rows, row  # noqa: E402

from autograder.grading.tasks import task_of_file  # noqa: E402

# What each step of measure() runs, and the public test file whose docstring names its task.
STEPS = {"train": ("train_bpe", "test_train_bpe.py"),
         "encode": ("Tokenizer.encode", "test_tokenizer.py"),
         "iterable": ("Tokenizer.encode_iterable", "test_encode_iterable.py")}


class StepFailed(Exception):
    """A step of measure() could not run on the package under test (one line for the user)."""


def step_task(step: str) -> str:
    """'Task N (title)' of a step, as the step's public test file names it."""
    found = task_of_file(ROOT / "tests" / "bpe" / "public" / STEPS[step][1])
    return f"Task {found[0]} ({found[1]})" if found else "its task"


def run_step(step: str, fn):
    """fn() of one step; any exception becomes a StepFailed naming the step's function and task."""
    what = STEPS[step][0]
    try:
        return fn()
    except NotImplementedError:
        raise StepFailed(f"{what} is not implemented yet: finish handout {step_task(step)} "
                         f"before benchmarking it") from None
    except Exception as e:  # noqa: BLE001 - a student's bug becomes one line
        raise StepFailed(f"{what} raised {type(e).__name__}: {str(e)[:200]} (handout "
                         f"{step_task(step)})") from None


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


def measure(impl: str, words: int = 110_000, lexicon: int = 8000, merges: int = 1000) -> dict:
    """Training and encoding seconds of ours and of the peers on one generated corpus."""
    sys.path.insert(0, impl)
    import tiktoken

    try:
        from bpe import Tokenizer, train_bpe
    except ImportError as e:
        raise StepFailed(f"cannot import train_bpe and Tokenizer from a bpe package in {impl}: "
                         f"{e}") from None

    fx = load_fixtures()
    text = fx.corpus(np.random.default_rng(0), words, words_per_lang=lexicon)
    n_bytes = len(text.encode("utf-8"))
    vocab_size = 256 + merges
    t_ours, (vocab, merge_list) = run_step("train", lambda: best_of(
        lambda: train_bpe(text, vocab_size), 1))
    t_hf, _ = best_of(lambda: hf_train(text, vocab_size), 3)
    ranks = run_step("train", lambda: {t: i for i, t in vocab.items()})
    enc = tiktoken.Encoding(name="bench_bpe", pat_str=fx.GPT2_PATTERN, mergeable_ranks=ranks,
                            special_tokens={})
    t_enc, ids = run_step("encode", lambda: best_of(  # a cold cache
        lambda: Tokenizer(vocab, merge_list).encode(text), 2))
    t_tik, ids_tik = best_of(lambda: enc.encode_ordinary(text), 3)
    if ids != ids_tik:
        raise StepFailed(f"Tokenizer.encode's ids differ from tiktoken's (handout "
                         f"{step_task('encode')})")
    t_it, _ = run_step("iterable", lambda: best_of(lambda: sum(1 for _ in Tokenizer(
        vocab, merge_list).encode_iterable(text.splitlines(keepends=True))), 1))
    return {"n_bytes": n_bytes, "merges": merges, "n_merges": len(merge_list),
            "vocab": len(vocab), "n_ids": len(ids), "train": t_ours, "train_hf": t_hf,
            "encode": t_enc, "encode_tiktoken": t_tik, "encode_iterable": t_it}


def report(m: dict) -> None:
    """The human-readable lines of a run alone."""
    def mbs(seconds: float) -> float:
        return m["n_bytes"] / 1e6 / seconds

    print(f"corpus: {m['n_bytes'] / 1e6:.2f} MB, {m['merges']} merges")
    print(f"train   ours {m['train']:7.2f} s   HF tokenizers {m['train_hf']:7.3f} s   "
          f"ours/HF = {m['train'] / m['train_hf']:6.1f}x slower   ({m['n_merges']} merges)")
    print(f"encode  ours {mbs(m['encode']):7.2f} MB/s   tiktoken {mbs(m['encode_tiktoken']):7.2f} "
          f"MB/s   ours/tiktoken = {m['encode'] / m['encode_tiktoken']:6.1f}x slower   "
          f"(same ids: yes)")
    print(f"encode_iterable  ours {mbs(m['encode_iterable']):7.2f} MB/s   "
          f"({m['encode_iterable'] / m['encode_tiktoken']:.1f}x tiktoken's time)")
    print(f"bytes/token at {m['vocab']} tokens: {m['n_bytes'] / m['n_ids']:.3f}")


def table_rows(m: dict) -> list[dict]:
    """measure()'s result as rows of the performance table."""
    mb = m["n_bytes"] / 1e6
    return [
        row("bpe", f"train_bpe, {mb:.2f} MB generated text to {m['merges']:,} merges",
            m["train"], "s", peer=m["train_hf"], peer_name="HF tokenizers BpeTrainer",
            note="ours once, peer best of 3; lower is better"),
        row("bpe", f"Tokenizer.encode, same {mb:.2f} MB (ids equal tiktoken's)",
            mb / m["encode"], "MB/s", peer=mb / m["encode_tiktoken"],
            peer_name="tiktoken encode_ordinary",
            note="cold cache, 1 thread; higher is better"),
        row("bpe", f"Tokenizer.encode_iterable, same {mb:.2f} MB by lines",
            mb / m["encode_iterable"], "MB/s", peer=mb / m["encode_tiktoken"],
            peer_name="tiktoken encode_ordinary", note="higher is better"),
    ]


def rows(impl: str | None = None) -> list[dict]:
    """Training vs HF tokenizers, encoding vs tiktoken (default sizes, reference solution)."""
    impl = impl or str(default_impl())
    whats = ["train_bpe", "Tokenizer.encode", "Tokenizer.encode_iterable"]
    return guarded("bpe", whats, lambda: table_rows(measure(impl)))


def default_impl() -> Path:
    return ROOT / "solutions" if (ROOT / "solutions" / "bpe").exists() else ROOT / "starter"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--impl", default=str(default_impl()), help="folder holding the bpe package")
    ap.add_argument("--words", type=int, default=110_000)
    ap.add_argument("--lexicon", type=int, default=8000, help="distinct words per language")
    ap.add_argument("--merges", type=int, default=1000)
    args = ap.parse_args()
    try:
        m = measure(args.impl, args.words, args.lexicon, args.merges)
    except StepFailed as e:
        print(f"bench_bpe: {e}", file=sys.stderr)
        sys.exit(1)
    report(m)
    print_rows(table_rows(m))


if __name__ == "__main__":
    main()
