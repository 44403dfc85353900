"""Regenerate the numbers of the fusion handout (README.md) from the reference solution.

    .venv/bin/python assignments/08_fusion/make_tables.py          # rewrite the generated blocks
    .venv/bin/python assignments/08_fusion/make_tables.py --check  # exit 1 if the handout is stale

Blocks (see assignments/handout_blocks.py):
- fusion-clip-by-hand: the 4 × 4 worked example of `clip_loss` (logits at the initial temperature,
  row and column losses, the loss at t = 0), from the reference;
- fusion-clip-batch: the loss of guessing, log N, at CLIP's batch of 32,768;
- machine-fusion-clip-demo: the tiny-CLIP demonstration of make_plots.py (`train_demo`, about 10 s
  of CPU time): zero-shot accuracy on seen and held-out pairs after training, and chance. Float32
  training amplifies the CPU's rounding, so the numbers depend on the machine: rewritten with
  --timings (with make_plots.py's figure, from the same run), only present under --check;
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
sys.path.insert(0, str(HERE))

import math

import torch
import torch.nn.functional as F
from handout_blocks import main
from make_plots import PAIRS, train_demo

from fusion import clip_loss, qwen2vl_num_tokens, qwen2vl_resize

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


TEXTS = [[1, 0.2, 0, 0], [0, 1, 0.5, 0], [0.3, 0, 1, 0], [0, 0, 0.8, 1]]  # image k: unit vector k
INITIAL_LOGIT_SCALE = math.log(1 / 0.07)  # CLIP §2.5


def clip_by_hand() -> str:
    images, texts = torch.eye(4, dtype=torch.float64), torch.tensor(TEXTS, dtype=torch.float64)
    scale = math.exp(INITIAL_LOGIT_SCALE)
    logits = scale * F.normalize(images, dim=-1) @ F.normalize(texts, dim=-1).T
    rows = F.cross_entropy(logits, torch.arange(4))
    cols = F.cross_entropy(logits.T, torch.arange(4), reduction="none")
    total = clip_loss(images, texts, INITIAL_LOGIT_SCALE)
    at_zero = clip_loss(images, texts, 0.0)
    cell = lambda i, j: f"**{logits[i, j]:.2f}**" if i == j else (f"{logits[i, j]:.2f}" if logits[i, j] else "0")  # noqa: E731
    table = ["|  | text 0 | text 1 | text 2 | text 3 |", "|---|---|---|---|---|"]
    table += [f"| image {i} | " + " | ".join(cell(i, j) for j in range(4)) + " |" for i in range(4)]
    col3 = ", ".join(f"{v:.2f}" if v else "0" for v in logits[:, 3].tolist())
    return ("\n".join(table) + "\n\n"
            f"Every row's largest entry is on the diagonal: each image picks its text, and the row losses\n"
            f"−log softmax(row)ᵢᵢ average to {rows:.4f}. But column 3 — text 3, asking which image it\n"
            f"describes — is `[{col3}]`: image 2 is a close second, and that column alone costs\n"
            f"−log(e^{logits[3, 3]:.2f} / (e^{logits[3, 3]:.2f} + e^{logits[2, 3]:.2f} + 2)) = "
            f"{cols[3]:.3f}; the four columns average {cols.mean():.4f}. The loss is\n"
            f"({rows:.4f} + {cols.mean():.4f}) / 2 = {total:.4f}. A one-directional loss (rows only) would "
            f"report {rows:.4f} and never\npush text 3 away from image 2. With t = 0 (multiplier 1) the same "
            f"batch costs {at_zero:.3f}, close to\nlog 4 = {math.log(4):.3f}, the loss of guessing")


def clip_batch() -> str:
    return (f"at CLIP's batch of 32,768 the loss of guessing (uniform logits) is log 32,768 = "
            f"{math.log(32768):.3f}, against log 4 = {math.log(4):.3f} for a batch of four")


def clip_demo() -> str:
    torch.set_num_threads(1)
    history, _, _ = train_demo()
    steps, seen, new = history[-1]
    return (f"After {steps:,} steps the model names {seen:.1%} of new pictures of *seen*\n"
            f"pairs correctly and {new:.1%} of pictures of the four *held-out* pairs, against a chance of "
            f"{1 / len(PAIRS):.1%}\n(1 in {len(PAIRS)}). Above chance on pairs it never saw, because the "
            f"text side composes")


def generate(timings: bool) -> dict[str, str]:
    blocks = {"fusion-clip-by-hand": clip_by_hand(), "fusion-clip-batch": clip_batch(),
              "fusion-token-table": token_table()}
    if timings:
        blocks[DEMO] = clip_demo()
    return blocks


DEMO = "machine-fusion-clip-demo"

if __name__ == "__main__":
    sys.exit(main(HERE / "README.md", generate, timing_names=(DEMO,)))
