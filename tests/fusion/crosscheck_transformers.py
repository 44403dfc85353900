"""Cross-check the clip_loss goldens against two independent oracles. Instructor tool, trusted.

For every stored clip_loss case, the loss and the gradients of the features (and of logit_scale)
are recomputed (a) with transformers' own CLIP loss, `image_text_contrastive_loss` (in
transformers 5.23; `clip_loss` in 4.x) on `logits_per_text`, as CLIPModel.forward builds them,
and (b) with the CLIP paper's pseudocode (Radford et al. 2021, Figure 3) transcribed to torch,
the multiplier capped at 100 as §2.5 says; then compared with the goldens (which come from
solutions/) with each observation's manifest tolerance. The resolution tests need no stored
truth: their check (checks.py) calls transformers' smart_resize in the parent at grading time,
compiled from transformers' source without importing its module; on every stored size and
pixel limit, that function is compared here with the module's own, imported.

    .venv/bin/python tests/fusion/crosscheck_transformers.py   # exit 0: goldens agree
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import sys
from pathlib import Path

import torch

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from transformers.models.clip import modeling_clip
from transformers.models.qwen2_vl import image_processing_pil_qwen2_vl

from autograder.authoring.crosscheck import Golden, main

HERE = Path(__file__).resolve().parent
MAX_SCALE = 100.0


def transformers_loss(image, text, log_scale):
    """CLIPModel.forward's logits (normalised embeddings, logit_scale.exp()), then its loss."""
    image_embeds = image / modeling_clip._get_vector_norm(image)
    text_embeds = text / modeling_clip._get_vector_norm(text)
    logits_per_text = text_embeds @ image_embeds.T * log_scale.exp().clamp(max=MAX_SCALE)
    return modeling_clip.image_text_contrastive_loss(logits_per_text)


def pseudocode_loss(image, text, log_scale):
    """Figure 3: I_e, T_e l2-normalised; logits = I_e·T_eᵀ·exp(t); loss_i over axis 0, loss_t over
    axis 1, loss = (loss_i + loss_t) / 2 (cross-entropy as the mean of -log softmax)."""
    i_e = image / image.pow(2).sum(dim=1, keepdim=True).sqrt()
    t_e = text / text.pow(2).sum(dim=1, keepdim=True).sqrt()
    logits = i_e @ t_e.T * torch.minimum(log_scale.exp(), torch.tensor(MAX_SCALE, dtype=log_scale.dtype))
    n = logits.shape[0]
    diagonal = logits[torch.arange(n), torch.arange(n)]
    loss_i = (torch.logsumexp(logits, dim=0) - diagonal).mean()
    loss_t = (torch.logsumexp(logits, dim=1) - diagonal).mean()
    return (loss_i + loss_t) / 2


def oracle_values(loss_fn, case: dict, i: int) -> dict:
    image = torch.tensor(case["image"], dtype=torch.float64, requires_grad=True)
    text = torch.tensor(case["text"], dtype=torch.float64, requires_grad=True)
    scale = torch.tensor(case["logit_scale"], dtype=torch.float64, requires_grad=True)
    loss = loss_fn(image, text, scale)
    loss.backward()
    values = {f"loss[{i}]": float(loss.detach()), f"grad_image[{i}]": image.grad.numpy(),
              f"grad_text[{i}]": text.grad.numpy()}
    if case["as_tensor"]:
        values[f"grad_logit_scale[{i}]"] = float(scale.grad)
    return values


ORACLES = (("transformers", transformers_loss), ("pseudocode", pseudocode_loss))


def clip_oracle(golden: Golden):
    """Every clip_loss observation recomputed by both oracles."""
    if "clip_loss" not in golden.id:
        return
    for name in golden.observed():
        i = int(re.search(r"\[(\d+)\]$", name).group(1))
        for oracle, fn in ORACLES:
            yield golden.compare(name, oracle_values(fn, golden.cases[i], i)[name], oracle)


def resize_outcome(fn, h: int, w: int, limits) -> list[int] | str:
    kwargs = {} if limits is None else {"min_pixels": limits[0], "max_pixels": limits[1]}
    try:
        return [int(v) for v in fn(h, w, factor=28, **kwargs)]
    except ValueError:
        return "ValueError"


def resize_oracle(golden: Golden):
    """checks.py's smart_resize (compiled from transformers' source) against the module's own,
    on every stored size and pixel limit of the resolution tests."""
    cases = golden.cases
    if not isinstance(cases, dict) or not {"sizes", "limits"} <= cases.keys():
        return
    ours = load_checks().smart_resize
    for j, limits in enumerate(cases["limits"]):
        wrong = [(h, w) for h, w in cases["sizes"] if resize_outcome(ours, h, w, limits)
                 != resize_outcome(image_processing_pil_qwen2_vl.smart_resize, h, w, limits)]
        yield golden.finding(f"resize[{j}]", f"checks.py's smart_resize differs at {wrong[:3]}"
                             if wrong else None)


@functools.cache
def load_checks():
    spec = importlib.util.spec_from_file_location("fusion_checks", HERE / "checks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def oracles(golden: Golden):
    yield from clip_oracle(golden)
    yield from resize_oracle(golden)


if __name__ == "__main__":
    sys.exit(main(__file__, oracles, "transformers' CLIP loss and the CLIP pseudocode, "
                  "and transformers' smart_resize"))
