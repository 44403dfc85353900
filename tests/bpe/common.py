"""Helpers shared by the bpe public and hidden tests (`from common import ...`).

The seeded fixture generators run only when goldens are generated (inside `cases=` generators);
graded runs replay the stored result.

- `corpus(rng, n_words)`: multilingual text (English, German, French, Russian, Greek, Japanese,
  Chinese), emoji (skin tones, ZWJ sequences, flags), numbers, contractions, whitespace runs.
- `tokenizer_fixture(rng, ...)`: a vocab and merges made by *stochastic* BPE (each merge is a
  random adjacent pair of the corpus, so frequent pairs are likely): valid merges that are not
  the answer to task 1. Every merged token has exactly one split into two vocab tokens, so
  tiktoken (which ranks by the merged bytes) and the contract (which ranks by the merge list)
  must agree on every text.
- `make_tokenizer(fixture)`: the student's Tokenizer built from such a fixture.
- `generated_lines(words, seed, n_lines)`: a lazily generated stream of lines.
- `record_training(rec, name, cases)`: train_bpe on each case, recording merges and vocab.
"""

import random
from collections import defaultdict

import regex

from autograder.harness.small_ints import SmallInts
from bpe import Tokenizer, train_bpe

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

SYLLABLES = {
    "en": ["th", "e", "an", "in", "er", "on", "re", "at", "st", "ing", "ou", "ch", "ly", "tion",
           "s", "b", "pl", "k", "w", "a", "o", "d", "m", "p", "y"],
    "de": ["über", "sch", "ä", "ö", "ü", "ß", "ein", "ge", "lich", "keit", "str", "en", "t"],
    "fr": ["é", "è", "ç", "qu", "eau", "ai", "ou", "ê", "oi", "ment", "l", "r"],
    "ru": ["при", "вет", "мир", "ст", "ов", "ый", "на", "ть", "ка", "ж", "о"],
    "el": ["κα", "λη", "μέ", "ρα", "σ", "ος", "τι", "ν"],
    "ja": ["日", "本", "語", "東", "京", "の", "は", "で", "す", "カ", "タ", "ー"],
    "zh": ["中", "文", "字", "学", "习", "大", "人", "们"],
}
EXTRAS = ["'s", "can't", "we'll", "they're", "I've", "she'd", "2024", "3.14", "1000000", "42",
          "🙂", "👍🏽", "🇩🇪", "👩‍💻", "❤️", "🎉", "🤖", "...", "--", "(x)", "#"]
SEPARATORS = [" "] * 8 + ["  ", "\n", "\n\n", "\t", " \n", "   \n\n", ", ", ". ", "! ", "? ",
                          "\r\n", "    "]


def corpus(rng, n_words: int, langs=tuple(SYLLABLES), words_per_lang: int = 150) -> str:
    """Zipf-distributed words from a random lexicon per language, joined by varied separators."""
    lexicon = []
    with SmallInts(rng) as ints:  # the draws of rng.integers(1, 5), then rng.integers(0, n, k)
        for lang in langs:
            syllable, n = SYLLABLES[lang].__getitem__, len(SYLLABLES[lang])
            for _ in range(words_per_lang):
                lexicon.append("".join(map(syllable, ints.many(0, n, ints.one(1, 5)))))
    lexicon += EXTRAS
    rank = rng.permutation(len(lexicon))
    p = 1.0 / (1.0 + rank) ** 1.1
    p /= p.sum()
    words = rng.choice(len(lexicon), size=n_words, p=p)
    seps = rng.integers(0, len(SEPARATORS), size=n_words)
    return "".join(lexicon[int(w)] + SEPARATORS[int(s)] for w, s in zip(words, seps))


def generated_lines(words, seed: int, n_lines: int):
    """n_lines lines of 8 of `words` each (about 70 bytes a line), generated lazily from `seed`:
    the streaming tests feed far more text than they could afford to hold."""
    r = random.Random(seed)
    for _ in range(n_lines):
        yield " ".join(r.choices(words, k=8)) + r.choice(["\n", "\n\n", " \n", "\n"])


def _merge(word, pair):
    """word (a list of byte tokens) with every occurrence of pair merged. Goldens time only: the
    student release holds no body (the BPE merge step is task 1's answer)."""
    ### BEGIN SOLUTION
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out
    ### END SOLUTION


def _splits(token: bytes, vocab: set) -> int:
    return sum(token[:k] in vocab and token[k:] in vocab for k in range(1, len(token)))


def stochastic_merges(rng, text: str, n_merges: int) -> list:
    """Merges made by repeatedly merging a random adjacent pair of the corpus (within
    pre-tokens). Skips a merge that would give some token a second split into vocab tokens.
    `holding` (token -> the words that hold it) and `extending` (token -> the merged tokens it
    starts or ends, longer than it) find at once the words a merge changes and the tokens whose
    splits a new token can change, which a scan of every word and every merged token found."""
    words = sorted({p.encode("utf-8") for p in regex.findall(GPT2_PATTERN, text)})
    words = [[bytes([b]) for b in w] for w in words if len(w) > 1]
    vocab = {bytes([b]) for b in range(256)}
    holding: dict[bytes, set[int]] = defaultdict(set)
    for i, word in enumerate(words):
        for token in word:
            holding[token].add(i)
    extending: dict[bytes, list[bytes]] = defaultdict(list)
    merges = []
    for _ in range(50 * n_merges):
        if len(merges) == n_merges or not words:
            break
        word = words[int(rng.integers(len(words)))]
        if len(word) < 2:
            continue
        j = int(rng.integers(len(word) - 1))
        a, b = word[j], word[j + 1]
        t = a + b
        if t in vocab or _splits(t, vocab) != 1:
            continue
        vocab.add(t)
        # every multi-byte token has one split (each was added that way, and only a shorter
        # token can be a piece of it): adding t changes only the splits of those starting or
        # ending with t
        if any(_splits(s, vocab) != 1 for s in extending.get(t, ())):
            vocab.remove(t)
            continue
        for k in range(1, len(t)):
            extending[t[:k]].append(t)
            extending[t[k:]].append(t)
        merges.append((a, b))
        for i in holding[a] & holding[b]:  # the words holding both, each merged on its own
            before, words[i] = set(words[i]), _merge(words[i], (a, b))
            after = set(words[i])
            for token in before - after:
                holding[token].discard(i)
            for token in after - before:
                holding[token].add(i)
    return merges


def tokenizer_fixture(rng, n_words: int, n_merges: int, specials=(), specials_in_vocab=True,
                      permute_ids=False) -> dict:
    """{"vocab": [[id, bytes], ...], "merges": [[a, b], ...], "specials": [...]}: ids 0-255
    bytes, then (optionally) the specials, then the merges; `permute_ids` shuffles all ids
    (a GPT-2-like layout where ids are not byte values and not in merge order)."""
    merges = stochastic_merges(rng, corpus(rng, n_words), n_merges)
    tokens = [bytes([b]) for b in range(256)]
    if specials_in_vocab:
        tokens += [s.encode("utf-8") for s in specials]
    tokens += [a + b for a, b in merges]
    ids = rng.permutation(len(tokens)).tolist() if permute_ids else list(range(len(tokens)))
    return {"vocab": [[i, t] for i, t in zip(ids, tokens)], "merges": [list(m) for m in merges],
            "specials": list(specials)}


def make_tokenizer(fixture, n_merges=None):
    """Tokenizer(vocab, merges, specials) from a fixture; with `n_merges`, only the first
    n_merges merges and the vocab they need (the 256 bytes and the merged tokens)."""
    vocab = {int(i): t for i, t in fixture["vocab"]}
    merges = [(a, b) for a, b in fixture["merges"]]
    if n_merges is not None:
        merges = merges[:n_merges]
        keep = {a + b for a, b in merges} | {bytes([i]) for i in range(256)}
        vocab = {i: t for i, t in vocab.items() if t in keep}
    return Tokenizer(vocab, merges, fixture["specials"])


def relabelled(text: str, rng) -> str:
    """`text` with its lowercase ASCII letters renamed by a random order-preserving map (a
    sorted random sample of letters): merge counts, ties and every comparison of byte strings
    stay what they were, the merges themselves change. The graded twin of a fixed example."""
    used = sorted({c for c in text if "a" <= c <= "z"})
    letters = sorted(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), size=len(used), replace=False))
    return text.translate(str.maketrans(dict(zip(used, letters))))


def record_training(rec, name, cases):
    """train_bpe on each case ({"text", "vocab_size", "specials"}); records, as `{name}[i].*`,
    the merges, the bytes of ids 0-255 and the vocab from id 256 on."""
    for k, case in enumerate(cases):
        vocab, merges = train_bpe(case["text"], case["vocab_size"], case["specials"])
        rec.exact(f"{name}[{k}].merges", [[a, b] for a, b in merges])
        rec.exact(f"{name}[{k}].bytes", b"".join(vocab[i] for i in range(256)))  # ids 0-255
        rec.exact(f"{name}[{k}].vocab", [[i, vocab[i]] for i in sorted(vocab) if i >= 256])
