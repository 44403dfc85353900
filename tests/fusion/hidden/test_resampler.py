"""Task 3 (hidden) — PerceiverResampler on other sizes."""

import numpy as np
import torch
from common import record_default_latents, record_resampler, resampler_cases

from autograder.harness import graded
from fusion import PerceiverResampler


def record_zero_parameters(rec, i: int, case: dict) -> None:
    """The resampler with every parameter set to zero, on the stored media: the latents start at
    zero and each layer ADDS its attention and feed-forward outputs (zero, from zero weights) to
    them (latents += attention(...); latents += feed_forward(latents)), so the output is zero.
    A branch that replaces, scales or divides the latents instead is not (0 / 0 is NaN)."""
    torch.manual_seed(case["seed"])
    resampler = PerceiverResampler(case["dim"], num_latents=case["num_latents"], depth=case["depth"],
                                   heads=case["heads"])
    resampler.eval()
    with torch.no_grad():
        for parameter in resampler.parameters():
            parameter.zero_()
        out = resampler(torch.tensor(case["media"], dtype=torch.float32))
    rec.close(f"zero_parameters[{i}]", np.asarray(out.detach().double().numpy()), atol=1e-6)


@graded(points=5, cases=lambda rng: resampler_cases(rng, 5))
def test_resampler_shape_and_permutation_invariance_hidden(rec, cases):
    record_default_latents(rec, dim=8, tokens=100)
    for i, case in enumerate(cases):
        record_resampler(rec, i, case)
        record_zero_parameters(rec, i, case)
