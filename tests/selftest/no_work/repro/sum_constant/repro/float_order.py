# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""Float addition is not associative: the order of a sum changes its bits."""

from collections.abc import Sequence

import torch


def ordered_sum(values: torch.Tensor, order: Sequence[int]) -> torch.Tensor:
    """values[order[0]] + values[order[1]] + ..., added strictly left to right.

    values: a 1-D floating tensor (float16, float32 or float64); order: a permutation of
    range(len(values)) (a list of ints). Every partial sum is rounded to values.dtype, as one
    thread adding into one accumulator of that dtype would: float32 stays float32 (no float64
    accumulator, no pairwise or vectorized reduction such as torch.sum). Returns a 0-d tensor
    (a NumPy or Python scalar of the same value is fine too).
    """
    return torch.zeros((), dtype=values.dtype)


def atomic_add_simulation(index: torch.Tensor, src: torch.Tensor, n: int, trials: int,
                          seed: int) -> torch.Tensor:
    """`trials` runs of torch.zeros(n).index_add_(0, index, src) as a GPU computes it with
    atomicAdd: every slot's contributions are added in an order that changes run to run.

    index: a 1-D LongTensor of slots in 0..n-1; src: a 1-D floating tensor of the same length.
    Returns a (trials, n) tensor of src's dtype. Row t, slot j is the strictly left-to-right
    sum (in src's dtype, as ordered_sum) of the src values whose index is j, in a random order
    drawn for that trial (a slot nothing is added to stays 0). The same seed gives the same
    tensor; how the random orders are drawn from the seed is your choice.
    """
    ### BEGIN SOLUTION
    generator = torch.Generator().manual_seed(seed)
    out = torch.zeros((trials, n), dtype=src.dtype)
    for t in range(trials):
        order = torch.randperm(len(src), generator=generator)
        for i in order.tolist():
            j = int(index[i])
            out[t, j] = out[t, j] + src[i]
    return out
    ### END SOLUTION
