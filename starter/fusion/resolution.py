"""Qwen2-VL's naive dynamic resolution: how many visual tokens an image costs, and fitting a set
of images into a context budget."""

import math  # noqa: F401
from collections.abc import Sequence

PATCH = 14  # ViT patch side, pixels
MERGE = 2  # 2 × 2 neighbouring patches are merged into one LM token
FACTOR = PATCH * MERGE  # sides are multiples of 28
MIN_PIXELS = 56 * 56  # 3,136: 4 tokens
MAX_PIXELS = 28 * 28 * 1280  # 1,003,520: 1,280 tokens
MAX_ASPECT_RATIO = 200


def qwen2vl_resize(height: int, width: int, min_pixels: int = MIN_PIXELS,
                   max_pixels: int = MAX_PIXELS) -> tuple[int, int]:
    """(h, w) the Qwen2-VL processor resizes a height × width image to, as transformers'
    smart_resize with factor 28: both sides multiples of 28, the area within
    [min_pixels, max_pixels] where it can be, the aspect ratio kept as well as rounding allows.

    1. max(height, width) / min(height, width) > 200 → ValueError.
    2. Round each side to the nearest multiple of 28 (Python's round: halves go to even, so
       42 → 56 but 70 → 56).
    3. If that area exceeds max_pixels: scale both sides by 1/β, β = √(height·width / max_pixels),
       and round each down to a multiple of 28 (at least 28).
       Else if it is below min_pixels: scale both by β = √(min_pixels / (height·width)) and
       round each up to a multiple of 28.
    """
    raise NotImplementedError


def qwen2vl_num_tokens(height: int, width: int, min_pixels: int = MIN_PIXELS,
                       max_pixels: int = MAX_PIXELS) -> int:
    """LM tokens of one height × width image in Qwen2-VL: (h/14)·(w/14) patches of the resized
    image, merged 2 × 2, so h·w / 784. The vision start/end tokens are not counted."""
    raise NotImplementedError


def fit_images_to_context(sizes: Sequence[tuple[int, int]], max_tokens: int) -> list[tuple[int, int]]:
    """Resized (h, w) for each (height, width) in `sizes`, whose tokens sum to at most max_tokens.

    Each result is a multiple of 28 on both sides and no larger, on either side, than that
    image's default qwen2vl_resize. When the defaults already fit, they are returned unchanged;
    otherwise images are shrunk (the policy is yours; use the budget reasonably). ValueError
    when even every image at min_pixels (4 tokens each) cannot fit.
    """
    raise NotImplementedError
