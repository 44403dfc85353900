"""Regenerate the numbers of the bpe handout (README.md) from the reference solution.

    .venv/bin/python assignments/03_bpe/make_tables.py            # rewrite the generated blocks
    .venv/bin/python assignments/03_bpe/make_tables.py --check    # exit 1 if the handout is stale

Blocks (see assignments/handout_blocks.py):
- bpe-first-merges: the first eight merges of the worked example (`train_bpe`, 264 tokens);
- bpe-strawberry: the id of " strawberry" and the merges that build it;
- bpe-vocab-table: bytes/token, tokens and `attention_flops` of the last 10 % of The Devil's
  Dictionary (data/devils-dictionary.txt, public domain; data/PROVENANCE.md) under growing
  vocabularies trained on the first 90 %.
  BPE training is greedy, so the first k merges of one training run are what training to
  256 + k tokens gives: one run serves every row;
- bpe-languages: one document in ten languages (data/debian-history) and a dedication in three
  more scripts: UTF-8 bytes per character and bytes per token under an English-trained and a
  ten-language tokenizer, and whether its ids equal tiktoken's built from the same merges;
- bpe-utf8: the UTF-8 byte counts of the handout's example characters, and the byte values that
  never occur in valid UTF-8 (found by encoding every code point);
- bench-bpe-train: train_bpe on bench/bench_bpe.py's ~1 MB corpus to 1,000 merges, against HF
  tokenizers, from the row of bench/results.json (the committed `make bench`), compared exactly;
- bpe-stream-sizes: how much text task 3's memory test streams (its N_LINES lines of
  `generated_lines`, from the stored cases of the published inputs), its memory
  limit, and the size of the hidden laziness test's input (N_LAZY_LINES lines): the lines are
  regenerated from each case's words and seed and their UTF-8 bytes counted.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "solutions"))
sys.path.insert(0, str(HERE.parent))

from handout_blocks import main

from bpe import Tokenizer, attention_flops, bytes_per_token, train_bpe
from bpe.pretokenize import GPT2_PATTERN

WORKED_EXAMPLE = ("low low low low low lower lower newest newest newest newest newest newest "
                  "widest widest widest")
FRUIT = ("I ate a strawberry with straw. A berry, a straw, a strawberry. raspberry and blueberry "
         "and strawberry jam. ")
DATA = HERE / "data"
LANGUAGES = ("en", "de", "es", "fr", "it", "lt", "pt", "ru", "ja", "ko")
DEDICATION_LANGUAGES = ("bn", "ta", "th")
LANGUAGE_NAMES = {"en": "English", "de": "German", "es": "Spanish", "fr": "French", "it": "Italian",
                  "lt": "Lithuanian", "pt": "Portuguese", "ru": "Russian", "ja": "Japanese",
                  "ko": "Korean", "bn": "Bengali", "ta": "Tamil", "th": "Thai"}
LANGUAGE_MERGES = 1000
VOCAB_SIZES = (256, 356, 556, 1256, 2256)
D_MODEL, N_LAYERS = 768, 12  # GPT-2 small's shape (Radford et al., 2019, Table 2)


def show(token: bytes) -> str:
    text = token.decode("utf-8", errors="replace")
    return f"'{text}'" if text.startswith(" ") else text


def first_merges() -> str:
    _, merges = train_bpe(WORKED_EXAMPLE, 256 + 8)
    return "```\n" + " ".join(f"({show(a)}, {show(b)})" for a, b in merges) + "\n```"


def strawberry() -> str:
    vocab, merges = train_bpe(FRUIT * 20, 256 + 40)
    ids = Tokenizer(vocab, merges).encode(" strawberry")
    if len(ids) != 1:
        return f'`" strawberry"` is {len(ids)} tokens here: {ids}'
    (tid,) = ids
    needed, todo = [], [vocab[tid]]
    pieces = {a + b: (a, b) for a, b in merges}
    while todo:  # the merges that build the token, in merge order
        tok = todo.pop()
        if tok in pieces:
            needed.append(pieces[tok])
            todo.extend(pieces[tok])
    needed.sort(key=merges.index)
    built = " ".join(f"({show(a)}, {show(b)})" for a, b in needed)
    return (f'`" strawberry"` becomes **one** token, id {tid}, built by the merges `{built}`. '
            f"Asked how many r's it contains, the model must have learned the spelling of id "
            f"{tid} from context")


def vocab_table() -> str:
    text = (DATA / "devils-dictionary.txt").read_text(encoding="utf-8")
    cut = len(text) * 9 // 10
    train, held_out = text[:cut], text[cut:]
    vocab, merges = train_bpe(train, max(VOCAB_SIZES))
    n_bytes = len(held_out.encode("utf-8"))
    lines = [f"Measured with the reference `bytes_per_token` / `attention_flops` on the last "
             f"{n_bytes:,} bytes of *The Devil's Dictionary* (tokenizers trained on the "
             f"{len(train.encode('utf-8')) / 1e3:.0f} kB before them; d_model {D_MODEL}, "
             f"{N_LAYERS} layers, i.e. GPT-2 small's shape):", "",
             "| vocab size | bytes/token | tokens | attention FLOPs |", "|---|---|---|---|"]
    rows = []
    for size in VOCAB_SIZES:
        k = size - 256
        tok = Tokenizer({i: vocab[i] for i in range(size)}, merges[:k])
        n_tokens = len(tok.encode(held_out))
        flops = attention_flops(n_tokens, D_MODEL, N_LAYERS)
        rows.append((bytes_per_token(tok, held_out), flops))
        label = f"{size:,} (bytes only)" if k == 0 else f"{size:,}"
        lines.append(f"| {label} | {rows[-1][0]:.3f} | {n_tokens:,} | {flops:.2e} |".replace("e+", "e"))
    gain, fewer = rows[-1][0] / rows[0][0], rows[0][1] / rows[-1][1]
    lines += ["", f"{gain:.2f}× more bytes per token buys {fewer:.2f}× (= {gain:.2f}²) fewer "
              f"attention FLOPs — and a {gain:.2f}× longer document in the same context window."]
    return "\n".join(lines)


def language_table() -> str:
    """One document in ten languages (Debian's project history) and a dedication in three more
    scripts: UTF-8 bytes per character, and bytes per token under a tokenizer trained on the
    English text only and one trained on all ten (first 80 % of each text; measured on the
    rest)."""
    texts = {lang: (DATA / "debian-history" / f"project-history.{lang}.txt").read_text(encoding="utf-8")
             for lang in LANGUAGES}
    split = {lang: len(t) * 4 // 5 for lang, t in texts.items()}
    english = Tokenizer(*train_bpe(texts["en"][:split["en"]], 256 + LANGUAGE_MERGES))
    vocab, merges = train_bpe("".join(t[:split[lang]] for lang, t in texts.items()),
                              256 + LANGUAGE_MERGES)
    everyone = Tokenizer(vocab, merges)
    held_out = {lang: t[split[lang]:] for lang, t in texts.items()}
    for lang in DEDICATION_LANGUAGES:
        held_out[lang] = (DATA / "debian-history" / f"dedication-9.0.{lang}.txt").read_text(encoding="utf-8")
    lines = ["| text | UTF-8 bytes / character | bytes / token, trained on English | tokens, "
             "as a multiple of English's | bytes / token, trained on all ten |",
             "|---|---|---|---|---|"]
    english_tokens = len(english.encode(held_out["en"]))
    for lang, text in held_out.items():
        n_tokens = len(english.encode(text))
        multiple = f"{n_tokens / english_tokens:.1f}×" if lang in LANGUAGES else "—"
        lines.append(f"| {LANGUAGE_NAMES[lang]} | {len(text.encode('utf-8')) / len(text):.2f} | "
                     f"{bytes_per_token(english, text):.2f} | {multiple} | "
                     f"{bytes_per_token(everyone, text):.2f} |")
    oracle = tiktoken_encoder(merges)
    same = sum(everyone.encode(text) == oracle(text) for text in held_out.values())
    lines += ["", f"On {same} of these {len(held_out)} texts the ten-language tokenizer's ids equal "
              f"those of `tiktoken.Encoding` built from the same merges and pattern (tiktoken "
              f"{tiktoken_version()})."]
    return "\n".join(lines)


def tiktoken_encoder(merges: list[tuple[bytes, bytes]]):
    """encode(text) -> ids of tiktoken.Encoding with rank 256 + k for merge k (ids = ranks here:
    train_bpe without special tokens numbers merges the same way)."""
    import tiktoken

    ranks = {bytes([b]): b for b in range(256)}
    for k, (a, b) in enumerate(merges):
        ranks[a + b] = 256 + k
    enc = tiktoken.Encoding(name="bpe_handout", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                            special_tokens={})
    return enc.encode_ordinary


def tiktoken_version() -> str:
    import tiktoken

    return tiktoken.__version__


def training_time() -> str:
    """From the train_bpe row of bench/results.json (the last `make bench`): checked exactly by
    --check, so the handout changes whenever a new `make bench` is committed."""
    results = json.loads((ROOT / "bench" / "results.json").read_text(encoding="utf-8"))
    rows = [r for r in results["rows"] if r["group"] == "bpe" and r["what"].startswith("train_bpe")
            and r["ratio"] is not None]
    if not rows:
        raise SystemExit("bench/results.json has no measured train_bpe row: run `make bench`")
    r = rows[0]
    return (f"{r['what']}: {r['ours']:.2f} s, {r['ratio']:.1f}× the time of Hugging Face "
            f"`tokenizers`' Rust trainer ({r['peer']:.2f} s) measured in the same run (`make bench`, "
            f"{results['date']}, {results['machine']}; the machine and its load change both "
            f"figures, the ratio less)")


UTF8_EXAMPLES = (("a", "ASCII letter"), ("é", "Latin letter with accent"), ("я", "Cyrillic letter"),
                 ("中", "CJK ideograph (Basic Multilingual Plane)"),
                 ("\U00020000", "CJK ideograph (Extension B, outside the BMP)"),
                 ("❤", "emoji in the BMP"), ("🍓", "emoji"), ("👍🏽", "emoji + skin-tone modifier"),
                 ("🇫🇷", "flag (two regional indicators)"),
                 ("👨\u200d👩\u200d👧", "family: three emoji joined by two ZWJ"))


def utf8_table() -> str:
    lines = ["| text | what | code points | UTF-8 bytes |", "|---|---|---|---|"]
    for text, what in UTF8_EXAMPLES:
        points = " ".join(f"U+{ord(c):04X}" for c in text)
        lines.append(f"| {text} | {what} | {points} | {len(text.encode('utf-8'))} |")
    seen = set()
    for cp in range(0x110000):
        if not 0xD800 <= cp <= 0xDFFF:
            seen.update(chr(cp).encode("utf-8"))
    never = [b for b in range(256) if b not in seen]
    runs, start = [], never[0]
    for prev, cur in zip(never, never[1:] + [None]):
        if cur != prev + 1:
            runs.append(f"0x{start:02X}" if start == prev else f"0x{start:02X}–0x{prev:02X}")
            start = cur
    lines += ["", f"{len(never)} byte values never occur in valid UTF-8: {', '.join(runs)}."]
    return "\n".join(lines)


TESTS = ROOT / "tests" / "bpe"


def module_constants(path: Path) -> dict[str, int]:
    """The module-level `NAME = <arithmetic on literals>` assignments of a test file, evaluated
    without importing it (10_000, 512 * 2**10)."""
    out = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = eval(compile(ast.Expression(node.value), str(path),
                                                       "eval"), {"__builtins__": {}})
            except Exception:  # noqa: BLE001, S110 - not a constant (a call, a name): skipped
                pass
    return out


def streamed_bytes(store: str, test: str, n_lines: int) -> int:
    """UTF-8 bytes of the n_lines lines `test` streams with the case stored in inputs/<store>.json."""
    spec = importlib.util.spec_from_file_location("bpe_tests_common", TESTS / "common.py")
    common = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(common)
    case = json.loads((TESTS / "inputs" / f"{store}.json").read_text(encoding="utf-8"))[test]
    return sum(len(line.encode("utf-8"))
               for line in common.generated_lines(case["words"], case["seed"], n_lines))


def stream_sizes() -> str:
    public = module_constants(TESTS / "public" / "test_encode_iterable.py")
    hidden = module_constants(TESTS / "hidden" / "test_encode_iterable.py")
    n, lazy = public["N_LINES"], hidden["N_LAZY_LINES"]
    published = streamed_bytes("public", "test_iterable_memory", n)
    lazy_bytes = streamed_bytes("hidden", "test_iterable_is_lazy", lazy)
    return (f"Memory: {n:,} lines ({published / 1024:.0f} KiB, published inputs), generated "
            f"lazily, are streamed under `tracemalloc`; the peak, "
            f"measured while the iterator is consumed, must stay below "
            f"{public['MEMORY_LIMIT'] // 1024} KiB. Hidden tests: ids arrive before half of "
            f"{lazy:,} lines ({lazy_bytes / 1e6:.2f} MB) is read (counted by "
            f"`assignments/03_bpe/make_tables.py`).")


def generate(timings: bool) -> dict[str, str]:
    return {"bpe-first-merges": first_merges(), "bpe-strawberry": strawberry(),
            "bpe-vocab-table": vocab_table(), "bench-bpe-train": training_time(),
            "bpe-utf8": utf8_table(), "bpe-languages": language_table(),
            "bpe-stream-sizes": stream_sizes()}


if __name__ == "__main__":
    sys.exit(main(HERE / "README.md", generate))
