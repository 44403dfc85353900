"""fusion speed as ratios to transformers' own code, measured in the same run on the same data.

    python bench/bench_fusion.py [--impl DIR]      # DIR holds a fusion/ package (default: solutions)

1. clip_loss, forward + backward, 2,048 pairs of 512-d features, vs transformers' CLIP loss
   (normalised embeddings, logits_per_text, image_text_contrastive_loss).
2. rope_2d on 16 heads x a 32 x 32 patch grid x 80 dims (Qwen2-VL's ViT head size), tables
   included, vs transformers' Qwen2-VL vision rotary embedding (Qwen2VLVisionRotaryEmbedding for
   the (row, column) ids + apply_rotary_pos_emb_vision, which rotates q and k).
3. FlamingoStyleLM(every=1) forward vs the bare GPT-2 it wraps (4 layers, 256 wide, 128 tokens,
   32 media tokens): what the gated blocks cost.
"ours"/"peer" are median milliseconds; ratio = ours / peer (below 1: ours is faster).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def median_ms(fn, repeats: int = 15) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def row(what, ours, peer, peer_name, note) -> dict:
    return {"group": "fusion", "what": what, "ours": ours, "peer": peer, "peer_name": peer_name,
            "unit": "ms", "ratio": ours / peer, "note": note}


def bench_clip_loss() -> dict:
    from transformers.models.clip import modeling_clip

    from fusion import clip_loss

    g = torch.Generator().manual_seed(0)
    image, text = torch.randn(2048, 512, generator=g), torch.randn(2048, 512, generator=g)
    scale = torch.tensor(2.659)

    def ours():
        a, b, s = image.clone().requires_grad_(), text.clone().requires_grad_(), scale.clone().requires_grad_()
        clip_loss(a, b, s).backward()

    def peer():
        a, b, s = image.clone().requires_grad_(), text.clone().requires_grad_(), scale.clone().requires_grad_()
        a_e, b_e = a / modeling_clip._get_vector_norm(a), b / modeling_clip._get_vector_norm(b)
        modeling_clip.image_text_contrastive_loss(b_e @ a_e.T * s.exp()).backward()

    return row("clip_loss forward+backward, 2,048 x 512", median_ms(ours), median_ms(peer),
               "transformers image_text_contrastive_loss", "lower ratio is better")


def bench_rope() -> dict:
    from types import SimpleNamespace

    from transformers.models.qwen2_vl.modeling_qwen2_vl import (
        Qwen2VLVisionRotaryEmbedding,
        apply_rotary_pos_emb_vision,
    )

    from fusion import rope_2d

    heads, side, dim = 16, 32, 80
    x = torch.randn(heads, side * side, dim, generator=torch.Generator().manual_seed(0))
    config = SimpleNamespace(rope_parameters={"rope_type": "axial", "rope_theta": 10000.0}, head_dim=dim)
    rotary = Qwen2VLVisionRotaryEmbedding(config)

    def peer():
        p = torch.arange(side * side)
        positions = torch.stack([p // side, p % side], dim=-1)  # (tokens, 2): row, column
        cos, sin = rotary(x, positions)
        q = x.transpose(0, 1)  # (tokens, heads, dim), as the ViT lays it out
        apply_rotary_pos_emb_vision(q, q, cos, sin)

    return row(f"rope_2d, {heads} heads x {side}x{side} patches x {dim}", median_ms(lambda: rope_2d(x, side, side)),
               median_ms(peer), "transformers Qwen2VLVisionRotaryEmbedding",
               "lower ratio is better; the peer rotates q and k")


def bench_flamingo() -> dict:
    import transformers

    from fusion import FlamingoStyleLM

    transformers.logging.set_verbosity_error()
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=1000, n_positions=256, n_embd=256, n_layer=4, n_head=4)
    lm = transformers.GPT2LMHeadModel(config).eval()
    ids = torch.randint(0, 1000, (2, 128))
    media = torch.randn(2, 32, 256)
    with torch.no_grad():
        bare = median_ms(lambda: lm(input_ids=ids))
        model = FlamingoStyleLM(lm, every=1).eval()
        wrapped = median_ms(lambda: model(ids, media))
    return row("FlamingoStyleLM forward, GPT-2 4 x 256, 128 tokens", wrapped, bare, "the bare GPT-2 forward",
               "ratio = cost of the gated blocks (1 = free)")


def rows(impl: str | None = None) -> list[dict]:
    sys.path.insert(0, impl or str(ROOT / "solutions"))
    torch.set_num_threads(1)
    return [bench_clip_loss(), bench_rope(), bench_flamingo()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", default=None, help="folder holding a fusion/ package")
    for r in rows(parser.parse_args().impl):
        print(f"{r['what']:<55} ours {r['ours']:9.2f} {r['unit']}  peer {r['peer']:9.2f} {r['unit']}  "
              f"ratio {r['ratio']:.2f}  ({r['peer_name']}; {r['note']})")
