"""Task 6: contaminated(train_docs, eval_docs, n) flags training docs that share a normalized
n-gram with the eval set. The planted leaks are re-cased, re-spaced and unicode-variant copies:
the silent failure is a pipeline that normalizes one side only and reports success."""

from common import fullwidth, ligatures, restyle, spaced, vocabulary, words_of

from autograder.harness import graded
from dedup import contaminated

GAPS = [" ", "  ", "\t", "\n", "\u00a0", "\u3000", "\r\n"]


def respell(rng, words, how):
    """The words respelled by `how`: "case", every word upper- or title-cased; "unicode", every
    word fullwidth or with ligatures; "space" and "all", other whitespace after each word."""
    if how == "case":
        words = restyle(rng, words, [(0.5, str.upper), (1.0, str.title)])
    elif how == "unicode":
        words = restyle(rng, words, [(0.5, fullwidth), (1.0, ligatures)])
    if how in ("space", "all"):
        return spaced(rng, words, GAPS, edges=False)
    return " ".join(words)


def leak_corpus(rng, n=13, kinds=("verbatim", "case", "space", "unicode"), per_kind=4,
                n_clean=60, n_near_miss=4):
    """eval: 8 docs (one shorter than n words). train: clean docs, leaked docs that embed an
    n-word (or longer) span of an eval doc respelled by `kind`, near misses that embed only n-1
    consecutive eval words, and short docs."""
    vocab = vocabulary(rng, 4000)
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
    """Five 12-word eval docs (no 13-gram) inside five train docs, and one 16-word eval doc
    inside a sixth train doc (the control: the only contaminated one), in a random order."""
    vocab = vocabulary(rng, 4000)
    evals = [words_of(rng, vocab, 12) for _ in range(5)] + [words_of(rng, vocab, 16)]
    evals = [evals[i] for i in rng.permutation(len(evals))]  # the control anywhere
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
    """Eval docs shorter than n flag nothing; the one long eval doc still flags its train doc
    (so flagging nothing earns nothing)."""
    flagged = contaminated(cases["train"], cases["eval"])
    rec.check("flagged", sorted(int(i) for i in flagged), check="contamination_flags")
