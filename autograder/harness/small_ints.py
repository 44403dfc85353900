"""Many small random integers, one at a time, for the tests' input generators: the values and the
generator's state afterwards are exactly those of the same `rng.integers(low, high[, size])`
calls on a numpy `Generator`, at about a fifth of their CPU.

A generator that builds its words letter by letter makes two numpy calls a word (how long, then
which letters), and each call costs microseconds of overhead for one to eight values: dedup's
`vocabulary` and bpe's `corpus` spent most of a reference run's input generation there. numpy
draws a bounded integer whose range fits 32 bits (every int64 `integers` call below 2**32
values) by Lemire's method on the bit generator's 32-bit stream: a product of one 32-bit draw
and the range, whose low half, when below (2**32 - range) % range, is rejected and drawn again
(numpy/random/src/distributions/distributions.c, `buffered_bounded_lemire_uint32`); a range of
one value draws nothing. `SmallInts` does the same on a block of 32-bit draws taken at once
(`integers(0, 2**32, dtype=uint32)` hands out the same stream, one 32-bit draw each) and, when
closed, rewinds the generator and takes exactly as many 32-bit draws as it used, so what is
drawn after it is unchanged too. tests/selftest/test_small_ints.py compares it with numpy's
calls, rejections included.
"""

from __future__ import annotations

import numpy as np

_SPAN = 1 << 32
_LOW = _SPAN - 1


class SmallInts:
    """Inside `with SmallInts(rng) as ints:`, `one(low, high)` stands for `int(rng.integers(low,
    high))` and `many(low, high, k)` for `rng.integers(low, high, k)` (as a list), in any order,
    while nothing else draws from `rng`; ranges of at most 2**32 - 1 values. Leaving the block
    puts `rng` where the same numpy calls would have left it."""

    def __init__(self, rng: np.random.Generator, block: int = 4096):
        self.rng, self.block = rng, block
        self.state = rng.bit_generator.state
        self.raw: list[int] = []
        self.pos = 0
        self.taken = 0  # 32-bit draws taken from the generator into `raw`

    def __enter__(self) -> SmallInts:
        return self

    def __exit__(self, *exc) -> None:
        self.rng.bit_generator.state = self.state
        used = self.taken - (len(self.raw) - self.pos)
        if used:
            self.rng.integers(0, _SPAN, size=used, dtype=np.uint32)

    def _next(self) -> int:
        if self.pos == len(self.raw):
            self.raw = self.rng.integers(0, _SPAN, size=self.block, dtype=np.uint32).tolist()
            self.pos, self.taken = 0, self.taken + self.block
        value = self.raw[self.pos]
        self.pos += 1
        return value

    def one(self, low: int, high: int) -> int:
        span = high - low
        if not 0 < span < _SPAN:
            raise ValueError(f"SmallInts draws from 1 to 2**32 - 1 values, not {span}")
        if span == 1:
            return low
        m = self._next() * span
        if (m & _LOW) < span:
            threshold = (_SPAN - span) % span
            while (m & _LOW) < threshold:
                m = self._next() * span
        return low + (m >> 32)

    def many(self, low: int, high: int, k: int) -> list[int]:
        return [self.one(low, high) for _ in range(k)]
