"""Task 6: contaminated(train_docs, eval_docs, n) flags training docs that share a normalized
n-gram with the eval set. The planted leaks are re-cased, re-spaced and unicode-variant copies:
the silent failure is a pipeline that normalizes one side only and reports success."""

from autograder.harness import graded
from dedup import contaminated

LETTERS = list("abcdefghijklmnopqrstuvwxyz")
GAPS = [" ", "  ", "\t", "\n", "\u00a0", "\u3000", "\r\n"]


def vocabulary(rng, size=4000):
    return sorted({"".join(rng.choice(LETTERS, size=int(rng.integers(2, 9)))) for _ in range(size)})


def words_of(rng, vocab, k):
    return [str(w) for w in rng.choice(vocab, size=k)]


def respell(rng, words, how):
    if how == "case":
        words = [w.upper() if rng.random() < 0.5 else w.title() for w in words]
    elif how == "unicode":
        words = ["".join(chr(ord(c) + 0xFEE0) for c in w) if rng.random() < 0.5
                 else w.replace("fi", "\ufb01").replace("fl", "\ufb02") for w in words]
    if how in ("space", "all"):
        gaps = rng.choice(GAPS, size=len(words))
        return "".join(w + g for w, g in zip(words, gaps))
    return " ".join(words)


def leak_corpus(rng, n=13, kinds=("verbatim", "case", "space", "unicode"), per_kind=4,
                n_clean=60, n_near_miss=4):
    """eval: 8 docs (one shorter than n words). train: clean docs, leaked docs that embed an
    n-word (or longer) span of an eval doc respelled by `kind`, near misses that embed only n-1
    consecutive eval words, and short docs."""
    vocab = vocabulary(rng)
    evals = [words_of(rng, vocab, int(rng.integers(30, 90))) for _ in range(7)]
    evals.append(words_of(rng, vocab, n - 1))
    train = [" ".join(words_of(rng, vocab, int(rng.integers(20, 120)))) for _ in range(n_clean)]
    for kind in kinds:
        for _ in range(per_kind):
            src = evals[int(rng.integers(0, 7))]
            length = int(rng.integers(n, n + 10))
            start = int(rng.integers(0, len(src) - length + 1))
            span = respell(rng, src[start:start + length], "verbatim" if kind == "verbatim" else kind)
            pre, post = words_of(rng, vocab, int(rng.integers(0, 30))), words_of(rng, vocab, 5)
            train.append(" ".join(pre) + " " + span + " " + " ".join(post))
    for _ in range(n_near_miss):
        src = evals[int(rng.integers(0, 7))]
        start = int(rng.integers(0, len(src) - n + 2))
        train.append(" ".join(words_of(rng, vocab, 10) + src[start:start + n - 1]
                              + words_of(rng, vocab, 10)))
    train += [" ".join(evals[0][:n - 1]), ""]  # short docs: never contaminated
    order = rng.permutation(len(train))
    return {"train": [train[int(i)] for i in order], "eval": [" ".join(e) for e in evals],
            "n": n}


def verbatim_cases(rng):
    return leak_corpus(rng, kinds=("verbatim",), per_kind=8)


def variant_cases(rng):
    return leak_corpus(rng, kinds=("case", "space", "unicode", "all"), per_kind=3)


def short_eval_cases(rng):
    vocab = vocabulary(rng)
    evals = [words_of(rng, vocab, 12) for _ in range(5)]
    train = [" ".join(e + words_of(rng, vocab, 20)) for e in evals]
    return {"train": train, "eval": [" ".join(e) for e in evals], "n": 13}


@graded(points=2, cases=verbatim_cases)
def test_contaminated_verbatim(rec, cases):
    flagged = contaminated(cases["train"], cases["eval"], n=cases["n"])
    rec.check("flagged", sorted(int(i) for i in flagged), check="contamination_flags")


@graded(points=4, cases=variant_cases)
def test_contaminated_variants(rec, cases):
    flagged = contaminated(cases["train"], cases["eval"], n=cases["n"])
    rec.check("flagged", sorted(int(i) for i in flagged), check="contamination_flags")


@graded(points=1, cases=short_eval_cases)
def test_short_eval_docs_flag_nothing(rec, cases):
    rec.exact("flagged", sorted(int(i) for i in contaminated(cases["train"], cases["eval"])))
