"""Regenerate the numbers of the fusion handout (README.md) from the reference solution.

    .venv/bin/python assignments/08_fusion/make_tables.py          # rewrite the generated blocks
    .venv/bin/python assignments/08_fusion/make_tables.py --check  # exit 1 if the handout is stale

Blocks (see assignments/handout_blocks.py):
- fusion-token-table: `qwen2vl_resize` / `qwen2vl_num_tokens` of real image sizes under the two
  pixel budgets in use: transformers' default (max_pixels = 28·28·1280 = 1,003,520) and the one in
  the preprocessor_config.json released with Qwen2-VL (max_pixels = 12,845,056 = 28·28·16384);
  min_pixels = 3,136 in both.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "solutions"))
sys.path.insert(0, str(HERE.parent))

from handout_blocks import main

from fusion import qwen2vl_num_tokens, qwen2vl_resize

TRANSFORMERS_DEFAULT = 28 * 28 * 1280  # 1,003,520
RELEASED_CONFIG = 12_845_056  # Qwen2-VL-7B-Instruct's preprocessor_config.json
SIZES = [("CLIP ViT-L/14 input", 224, 224), ("LLaVA-1.5 input", 336, 336), ("VGA photo", 480, 640),
         ("720p frame", 720, 1280), ("1080p screenshot", 1080, 1920), ("12 MP phone photo", 3024, 4032),
         ("4K frame", 2160, 3840), ("A4 page at 300 dpi", 3508, 2480), ("1:100 panorama", 100, 10000),
         ("tiny icon", 32, 32)]


def token_table() -> str:
    lines = ["| image | height × width | default budget: resized to | tokens | released config: "
             "resized to | tokens |", "|---|---|---|---|---|---|"]
    for what, h, w in SIZES:
        cells = []
        for budget in (TRANSFORMERS_DEFAULT, RELEASED_CONFIG):
            rh, rw = qwen2vl_resize(h, w, max_pixels=budget)
            cells += [f"{rh} × {rw}", f"{qwen2vl_num_tokens(h, w, max_pixels=budget):,}"]
        lines.append(f"| {what} | {h} × {w} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def generate(timings: bool) -> dict[str, str]:
    return {"fusion-token-table": token_table()}


if __name__ == "__main__":
    sys.exit(main(HERE / "README.md", generate))
