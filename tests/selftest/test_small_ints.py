"""harness/small_ints.py: SmallInts draws what numpy's `Generator.integers` calls draw, and leaves
the generator where they would have (the tests' inputs of every draw depend on both: dedup's
`vocabulary` and bpe's `corpus` draw through it, and what they draw after it too)."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.harness.small_ints import SmallInts

# spans of 1 (nothing drawn), powers of two (never rejected), the course's (7, 26, syllables),
# and spans where numpy rejects often (2**31 + 1: about half its 32-bit draws) or never
SPANS = [1, 2, 4, 7, 26, 151, 3 * 2**30, 2**31 + 1, 2**32 - 1]


def plans(n: int, seed: int = 0):
    """n random call sequences: (one or many, low, high, k)."""
    r = np.random.default_rng(seed)
    for _ in range(n):
        plan = []
        for _ in range(int(r.integers(1, 30))):
            low, span = int(r.integers(-5, 5)), SPANS[int(r.integers(len(SPANS)))]
            plan.append((bool(r.integers(2)), low, low + span, int(r.integers(0, 9))))
        yield plan, int(r.integers(1, 64))


def numpys(rng, plan):
    return [int(rng.integers(lo, hi)) if one else rng.integers(lo, hi, k).tolist()
            for one, lo, hi, k in plan]


def ours(rng, plan, block):
    with SmallInts(rng, block=block) as ints:
        return [ints.one(lo, hi) if one else ints.many(lo, hi, k) for one, lo, hi, k in plan]


def test_the_same_values_and_the_same_generator_state_after():
    """2,000 call sequences, each from its own seed, block sizes from 1 to 63 (a block runs out
    mid-call, often): the values, the generator's state after the block, and its next draws
    equal numpy's, rejections included (2**31 + 1 rejects about every other 32-bit draw)."""
    rejected = 0
    for seed, (plan, block) in enumerate(plans(2000)):
        theirs, mine = np.random.default_rng(seed), np.random.default_rng(seed)
        assert ours(mine, plan, block) == numpys(theirs, plan), plan
        assert mine.bit_generator.state == theirs.bit_generator.state, plan
        assert mine.random(3).tolist() == theirs.random(3).tolist()
        rejected += any(hi - lo == 2**31 + 1 for _, lo, hi, _ in plan)
    assert rejected > 100  # the rejection path ran


def test_words_as_rng_choice_draws_them():
    """dedup's vocabulary: `rng.choice(letters, size=int(rng.integers(2, 9)))` per word."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    for seed in range(50):
        theirs, mine = np.random.default_rng(seed), np.random.default_rng(seed)
        expected = ["".join(theirs.choice(np.array(list(letters)), size=int(theirs.integers(2, 9))))
                    for _ in range(300)]
        with SmallInts(mine) as ints:
            got = ["".join(map(letters.__getitem__, ints.many(0, 26, ints.one(2, 9))))
                   for _ in range(300)]
        assert got == expected
        assert mine.bit_generator.state == theirs.bit_generator.state


@pytest.mark.parametrize("low, high", [(0, 0), (3, 1), (0, 2**32), (-1, 2**32)])
def test_a_range_it_cannot_draw_is_refused(low, high):
    with SmallInts(np.random.default_rng(0)) as ints, pytest.raises(ValueError, match="2\\*\\*32"):
        ints.one(low, high)
