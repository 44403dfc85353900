"""Task 6 (hidden): larger leak corpora, every respelling, and n = 8."""

from common import fullwidth, restyle, spaced, vocabulary, words_of

from autograder.harness import graded
from dedup import contaminated

GAPS = [" ", "\t\t", "\n", "\u00a0", "\u2003", "\u3000"]


def respell(rng, words):
    return spaced(rng, restyle(rng, words, [(0.3, str.upper), (0.5, fullwidth)]), GAPS, edges=False)


def leak_cases(n):
    def make(rng):
        vocab = vocabulary(rng, 4000)
        evals = [words_of(rng, vocab, int(rng.integers(20, 120))) for _ in range(12)]
        train = [" ".join(words_of(rng, vocab, int(rng.integers(10, 150)))) for _ in range(120)]
        for _ in range(16):
            src = evals[int(rng.integers(0, len(evals)))]
            length = int(rng.integers(n, min(len(src), n + 20) + 1))
            start = int(rng.integers(0, len(src) - length + 1))
            train.append(" ".join(words_of(rng, vocab, 8)) + "\n"
                         + respell(rng, src[start:start + length]))
        for _ in range(6):  # near misses: n - 1 consecutive eval words only
            src = evals[int(rng.integers(0, len(evals)))]
            start = int(rng.integers(0, len(src) - n + 2))
            train.append(" ".join(words_of(rng, vocab, 6) + src[start:start + n - 1]))
        order = rng.permutation(len(train))
        return {"train": [train[int(i)] for i in order], "eval": [" ".join(e) for e in evals],
                "n": n}
    return make


@graded(points=3, cases=leak_cases(13))
def test_contaminated_respelled(rec, cases):
    flagged = contaminated(cases["train"], cases["eval"], n=cases["n"])
    rec.check("flagged", sorted(int(i) for i in flagged), check="contamination_flags")


@graded(points=2, cases=leak_cases(8))
def test_contaminated_n8(rec, cases):
    flagged = contaminated(cases["train"], cases["eval"], n=cases["n"])
    rec.check("flagged", sorted(int(i) for i in flagged), check="contamination_flags")
