"""Task 5: glitch tokens. unused_tokens: ids never emitted on a text (SolidGoldMagikarp
candidates); unreachable_tokens: rows of an unembedding that can never be the strict argmax
because they lie in the convex hull of the other rows (boundary and duplicates included),
judged against an independent LP oracle in the parent (`matches_hull_oracle`)."""

import numpy as np
from common import corpus, make_tokenizer, tokenizer_fixture

from autograder.harness import graded
from bpe import unreachable_tokens, unused_tokens


def unused_cases(rng):
    # merges learned on one corpus, measured on a different mix of languages
    return {"fixture": tokenizer_fixture(rng, 1500, 300, ["<|endoftext|>"]),
            "texts": [corpus(rng, 1500), corpus(rng, 800, langs=("en", "de")),
                      "<|endoftext|>"]}


@graded(points=3, cases=unused_cases)
def test_unused_tokens(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    for i, text in enumerate(cases["texts"]):
        rec.exact(f"unused[{i}]", sorted(int(t) for t in unused_tokens(tok, text)))


def hull_cases(rng):
    """Small-integer points: exact boundaries (collinear points), duplicates, interior points,
    and vertices whose margin is far above any tolerance."""
    mats = []
    for n, d, span in [(12, 2, 3), (20, 2, 4), (15, 3, 2), (6, 5, 3)]:
        mats.append(rng.integers(-span, span + 1, size=(n, d)).astype(float))
    square = np.array([[0, 0], [2, 0], [0, 2], [2, 2], [1, 0], [1, 1], [2, 2], [3, 1]], float)
    mats.append(square)  # (1, 0) on an edge, (1, 1) inside, (2, 2) twice
    return {"matrices": mats}


@graded(points=4, cases=hull_cases)
def test_unreachable_tokens(rec, cases):
    for i, W in enumerate(cases["matrices"]):
        rows = unreachable_tokens(np.asarray(W))
        rec.check(f"rows[{i}]", [int(r) for r in rows], check="matches_hull_oracle")
