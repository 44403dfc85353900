"""Task 5 (hidden): unused_tokens with special tokens and bytes that UTF-8 never uses;
unreachable_tokens on degenerate clouds (flat, collinear, all equal, high dimension)."""

import numpy as np
from common import corpus, make_tokenizer, tokenizer_fixture

from autograder.harness import graded
from bpe import unreachable_tokens, unused_tokens


def unused_cases(rng):
    specials = ["<|endoftext|>", "<|pad|>"]
    fixture = tokenizer_fixture(rng, 1500, 250, specials, specials_in_vocab=False)
    texts = ["", corpus(rng, 2000) + "<|endoftext|>", "".join(chr(c) for c in range(32, 127))]
    return {"fixture": fixture, "texts": texts}


@graded(points=3, cases=unused_cases)
def test_unused_tokens_specials(rec, cases):
    tok = make_tokenizer(cases["fixture"])
    for i, text in enumerate(cases["texts"]):
        rec.exact(f"unused[{i}]", sorted(int(t) for t in unused_tokens(tok, text)))


def degenerate_cases(rng):
    mats = []
    flat = rng.integers(-3, 4, size=(25, 2)).astype(float) @ np.array([[1, 0, 2, 0], [0, 1, 0, 3.0]])
    mats.append(flat)  # a 2-D cloud inside 4-D space
    line = np.outer(np.array([0, 1, 2, 3, 4, 2, 0, 4], float), [1.0, -2.0, 0.5])
    mats.append(line)  # collinear: only the two ends are reachable, and they are duplicated
    mats.append(np.ones((4, 3)))  # all rows equal: none is ever the strict argmax
    mats.append(np.array([[1.0, 2.0, 3.0]]))  # a single row always wins
    mats.append(rng.normal(size=(8, 12)))  # fewer rows than dimensions: all vertices
    cube = np.array([[x, y, z] for x in (0, 2) for y in (0, 2) for z in (0, 2)], float)
    mats.append(np.vstack([cube, [[1, 1, 1], [1, 1, 2], [2, 1, 1], [1, 0, 0]]]))
    mats.append(rng.integers(-4, 5, size=(40, 3)).astype(float))
    return {"matrices": mats}


@graded(points=5, cases=degenerate_cases)
def test_unreachable_tokens_degenerate(rec, cases):
    for i, W in enumerate(cases["matrices"]):
        rows = unreachable_tokens(np.asarray(W))
        rec.check(f"rows[{i}]", [int(r) for r in rows], check="matches_hull_oracle")
