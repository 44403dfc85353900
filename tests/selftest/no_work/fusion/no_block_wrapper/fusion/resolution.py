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
    ### BEGIN SOLUTION
    if max(height, width) / min(height, width) > MAX_ASPECT_RATIO:
        raise ValueError(f"aspect ratio {max(height, width) / min(height, width):.1f} of "
                         f"{height}x{width} is above {MAX_ASPECT_RATIO}")
    h, w = round(height / FACTOR) * FACTOR, round(width / FACTOR) * FACTOR
    if h * w > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        h = max(FACTOR, math.floor(height / beta / FACTOR) * FACTOR)
        w = max(FACTOR, math.floor(width / beta / FACTOR) * FACTOR)
    elif h * w < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h = math.ceil(height * beta / FACTOR) * FACTOR
        w = math.ceil(width * beta / FACTOR) * FACTOR
    return h, w
    ### END SOLUTION


def qwen2vl_num_tokens(height: int, width: int, min_pixels: int = MIN_PIXELS,
                       max_pixels: int = MAX_PIXELS) -> int:
    """LM tokens of one height × width image in Qwen2-VL: (h/14)·(w/14) patches of the resized
    image, merged 2 × 2, so h·w / 784. The vision start/end tokens are not counted."""
    ### BEGIN SOLUTION
    h, w = qwen2vl_resize(height, width, min_pixels, max_pixels)
    return (h // PATCH) * (w // PATCH) // (MERGE * MERGE)
    ### END SOLUTION


def fit_images_to_context(sizes: Sequence[tuple[int, int]], max_tokens: int) -> list[tuple[int, int]]:
    """Resized (h, w) for each (height, width) in `sizes`, whose tokens sum to at most max_tokens.

    Each result is a multiple of 28 on both sides and no larger, on either side, than that
    image's default qwen2vl_resize. When the defaults already fit, they are returned unchanged;
    otherwise images are shrunk (the policy is yours; use the budget reasonably). ValueError
    when even every image at min_pixels (4 tokens each) cannot fit.
    """
    ### BEGIN SOLUTION
    defaults = [qwen2vl_resize(h, w) for h, w in sizes]

    def tokens(resized):
        return sum(h * w // (FACTOR * FACTOR) for h, w in resized)

    def at_cap(cap):  # every image resized with max_pixels = cap, never above its default
        return [tuple(min(a, b) for a, b in zip(qwen2vl_resize(h, w, max_pixels=cap), default))
                for (h, w), default in zip(sizes, defaults)]

    if tokens(defaults) <= max_tokens:
        return defaults
    if len(sizes) * MIN_PIXELS // (FACTOR * FACTOR) > max_tokens or tokens(at_cap(MIN_PIXELS)) > max_tokens:
        raise ValueError(f"{len(sizes)} images cannot fit in {max_tokens} tokens even at "
                         f"{MIN_PIXELS} pixels each")
    low, high = MIN_PIXELS, MAX_PIXELS  # tokens(at_cap(low)) fits; find the largest cap that does
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if tokens(at_cap(mid)) <= max_tokens else (low, mid)
    return at_cap(low)
    ### END SOLUTION
