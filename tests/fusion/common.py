"""Shared by fusion's public and hidden tests: input generators and the recording loops both
test sets run on their own inputs. Inputs and builders only: no expected value lives here.

Nothing here imports transformers at module level (it takes seconds): only the Task 4 model
builder does, when a test calls it.
"""

import math
import os

import numpy as np
import torch

from autograder.harness import outcome
from fusion import (
    FlamingoStyleLM,
    GatedCrossAttentionBlock,
    LlavaProjector,
    PerceiverResampler,
    chair_scores,
    clip_loss,
    fit_images_to_context,
    qwen2vl_num_tokens,
    qwen2vl_resize,
    rope_2d,
    zero_shot_classify,
)

CLIP_INIT = math.log(1 / 0.07)  # CLIP's initial logit_scale (a temperature of 0.07)


# ================================================================ Task 1: clip_loss
def feature_cases(rng: np.random.Generator, n: int, logit_scales: list[float]) -> list[dict]:
    """Batches of (image, text) features with rows of very different norms (normalization
    matters) and the given logit scales (some above ln 100, where the cap acts)."""
    cases = []
    for k in range(n):
        batch, dim = int(rng.integers(2, 9)), int(rng.integers(3, 17))
        image = rng.normal(size=(batch, dim)) * rng.uniform(0.2, 5.0, size=(batch, 1))
        text = 0.6 * image + rng.normal(size=(batch, dim)) * rng.uniform(0.2, 5.0, size=(batch, 1))
        cases.append({"image": image, "text": text, "logit_scale": logit_scales[k % len(logit_scales)],
                      "as_tensor": bool(k % 2)})
    return cases


# contract: SPEC §5.8 fixes no dtype inside clip_loss: float32 inside (HF CLIPModel, open_clip, a
# float32 multiplier torch.minimum(exp, torch.tensor(100.))) is correct, so float64 inputs are
# compared at float32 precision. Logits reach 100·cos, so the loss and gradients carry float32
# rounding of numbers up to 100: rtol 1e-5, and an atol of 1e-5 of the array's largest entry
# (an entry near 0 is a difference of such numbers; its float32 rounding is theirs).
CLIP_TOL = {"atol": 1e-6, "rtol": 1e-5}


def clip_tol(value) -> dict:
    """CLIP_TOL with the atol scaled to `value`'s largest entry (float32 rounding of the terms
    an entry is a difference of)."""
    scale = float(np.max(np.abs(value))) if np.size(value) else 0.0
    return {"atol": CLIP_TOL["atol"] + CLIP_TOL["rtol"] * scale, "rtol": CLIP_TOL["rtol"]}


def record_clip_loss(rec, i: int, case: dict) -> None:
    """The loss and the gradients of both feature matrices (and of logit_scale when it is a
    0-d tensor); float64 inputs, compared at float32 precision (CLIP_TOL)."""
    image = torch.tensor(case["image"], dtype=torch.float64, requires_grad=True)
    text = torch.tensor(case["text"], dtype=torch.float64, requires_grad=True)
    scale = case["logit_scale"]
    if case["as_tensor"]:
        scale = torch.tensor(scale, dtype=torch.float64, requires_grad=True)
    loss = clip_loss(image, text, scale)
    rec.close(f"loss[{i}]", float(loss.detach()), **CLIP_TOL)
    loss.backward()
    rec.close(f"grad_image[{i}]", image.grad.numpy(), **clip_tol(image.grad.numpy()))
    rec.close(f"grad_text[{i}]", text.grad.numpy(), **clip_tol(text.grad.numpy()))
    if case["as_tensor"]:
        grad = scale.grad
        # no gradient is no gradient: None (a Python-float cap) and 0 (a clamp) are both right
        rec.close(f"grad_logit_scale[{i}]", 0.0 if grad is None else float(grad), **CLIP_TOL)


def zero_shot_cases(rng: np.random.Generator, n: int) -> list[dict]:
    """Images near one class each, class prompts of very different norms: the raw dot product
    picks the longest class vector, the cosine picks the nearest direction."""
    cases = []
    for _ in range(n):
        classes, dim, images = int(rng.integers(3, 8)), int(rng.integers(4, 12)), int(rng.integers(5, 15))
        directions = rng.normal(size=(classes, dim))
        norms = rng.uniform(0.1, 10.0, size=(classes, 1))
        labels = rng.integers(0, classes, size=images)
        image = directions[labels] + 0.3 * rng.normal(size=(images, dim))
        cases.append({"image": image * rng.uniform(0.5, 3.0, size=(images, 1)),
                      "classes": directions * norms})
    return cases


def record_zero_shot(rec, i: int, case: dict) -> None:
    predicted = zero_shot_classify(torch.tensor(case["image"], dtype=torch.float32),
                                   torch.tensor(case["classes"], dtype=torch.float32))
    rec.exact(f"dtype[{i}]", str(getattr(predicted, "dtype", type(predicted).__name__)))
    rec.exact(f"classes[{i}]", [int(c) for c in predicted])


# ================================================================ Task 2: LlavaProjector
def projector_cases(rng: np.random.Generator, n: int) -> list[dict]:
    """Weights to load by shape (vision_dim != text_dim, W2 symmetric so its layout is free)
    and inputs (B, N, vision_dim)."""
    cases = []
    for _ in range(n):
        v, t = (int(d) for d in rng.choice(np.arange(2, 12), size=2, replace=False))
        w2 = rng.normal(size=(t, t))
        cases.append({"vision_dim": v, "text_dim": t, "w1": rng.normal(size=(t, v)),
                      "w2": (w2 + w2.T) / 2, "bias": rng.normal(size=t),
                      "x": rng.normal(size=(int(rng.integers(1, 4)), int(rng.integers(1, 6)), v)) * 2})
    return cases


def load_projector_weights(projector: torch.nn.Module, case: dict) -> None:
    """Overwrite every parameter, found by its shape: (t, v) or (v, t) gets W1 (transposed as
    needed), (t, t) gets the symmetric W2, (t,) gets the bias (both biases the same vector)."""
    v, t = case["vision_dim"], case["text_dim"]
    by_shape = {(t, v): case["w1"], (v, t): np.asarray(case["w1"]).T, (t, t): case["w2"], (t,): case["bias"]}
    with torch.no_grad():
        for name, p in projector.named_parameters():
            value = by_shape.get(tuple(p.shape))
            if value is None:
                raise ValueError(f"parameter {name} has shape {tuple(p.shape)}: not a weight or bias "
                                 f"of Linear({v}, {t}) or Linear({t}, {t})")
            p.copy_(torch.as_tensor(np.asarray(value), dtype=p.dtype))


def record_projector(rec, i: str, case: dict, kind: str) -> None:
    projector = LlavaProjector(case["vision_dim"], case["text_dim"], kind=kind)
    rec.exact(f"parameters[{i}]", sum(p.numel() for p in projector.parameters()))
    load_projector_weights(projector, case)
    with torch.no_grad():
        out = projector(torch.tensor(case["x"], dtype=torch.float32))
    rec.close(f"output[{i}]", out.numpy(), atol=1e-5, rtol=1e-5)


# ================================================================ Task 3: PerceiverResampler
def resampler_cases(rng: np.random.Generator, n: int) -> list[dict]:
    cases = []
    for _ in range(n):
        heads = int(rng.choice([1, 2, 4]))
        dim = heads * int(rng.choice([4, 8]))
        cases.append({"dim": dim, "heads": heads, "num_latents": int(rng.integers(1, 9)),
                      "depth": int(rng.integers(1, 4)), "seed": int(rng.integers(2**31)),
                      "media": rng.normal(size=(int(rng.integers(2, 4)), int(rng.integers(2, 12)), dim)),
                      "other": rng.normal(size=(1, int(rng.integers(1, 12)), dim)),
                      "perm": rng.permutation(64)})
    return cases


def record_default_latents(rec, dim: int, tokens: int) -> None:
    """PerceiverResampler(dim) with its defaults: 64 latents out."""
    torch.manual_seed(0)
    with torch.no_grad():
        out = PerceiverResampler(dim)(torch.randn(2, tokens, dim))
    rec.exact("default_shape", list(out.shape))


def same_mean_media(media: torch.Tensor) -> torch.Tensor:
    """Other media tokens with the same per-element mean over the tokens (mean pooling cannot
    tell them apart; attention can): each token's deviation from the mean is reversed and
    doubled."""
    mean = media.mean(dim=1, keepdim=True)
    return mean - 2.0 * (media - mean)


def record_resampler(rec, i: int, case: dict) -> None:
    """Raw outputs, judged in the parent (checks.resampler_properties): on the stored media, on
    its tokens permuted, on each batch element alone, on another batch of media, and on media
    with the same token mean. The shapes also go in as exact observations, and whether the
    permuted output equals the output (a verdict that only carries the heads-mixing hint)."""
    torch.manual_seed(case["seed"])
    resampler = PerceiverResampler(case["dim"], num_latents=case["num_latents"], depth=case["depth"],
                                   heads=case["heads"])
    resampler.eval()
    media = torch.tensor(case["media"], dtype=torch.float32)
    other = torch.tensor(case["other"], dtype=torch.float32)
    perm = [int(p) for p in case["perm"] if p < media.shape[1]]
    with torch.no_grad():
        out = resampler(media)
        rec.exact(f"shape[{i}]", list(out.shape))
        rec.exact(f"shape_other_length[{i}]", list(resampler(other).shape))
        outputs = {"out": out, "permuted": resampler(media[:, perm]),
                   "alone": torch.cat([resampler(media[b : b + 1]) for b in range(media.shape[0])]),
                   "other_media": resampler(media.flip(0) + 1.0),
                   "same_mean": resampler(same_mean_media(media))}
    raw = {key: np.asarray(value.detach().double().numpy()) for key, value in outputs.items()}
    rec.check(f"outputs[{i}]", raw, check="resampler_properties")
    invariant = bool(np.abs(raw["permuted"] - raw["out"]).max() <= 1e-4 * max(1.0, np.abs(raw["out"]).max()))
    rec.exact(f"permutation_invariant[{i}]", invariant)


# ================================================================ Task 4: gated cross-attention
def gate_parameters(module: torch.nn.Module) -> dict[str, torch.nn.Parameter]:
    """The parameters named attn_gate / ff_gate (the last part of their dotted name)."""
    return {name: p for name, p in module.named_parameters()
            if name.rsplit(".", 1)[-1] in ("attn_gate", "ff_gate")}


def set_gates(block: torch.nn.Module, attn: float, ff: float) -> None:
    with torch.no_grad():
        for name, p in gate_parameters(block).items():
            p.fill_(attn if name.endswith("attn_gate") else ff)


def block_cases(rng: np.random.Generator, n: int) -> list[dict]:
    cases = []
    for _ in range(n):
        heads = int(rng.choice([1, 2, 4]))
        dim = heads * int(rng.choice([4, 8]))
        batch = int(rng.integers(1, 4))
        cases.append({"dim": dim, "heads": heads, "seed": int(rng.integers(2**31)),
                      "x": rng.normal(size=(batch, int(rng.integers(1, 7)), dim)),
                      "media": rng.normal(size=(batch, int(rng.integers(1, 9)), dim)),
                      "gates": sorted(float(g) for g in rng.uniform(0.2, 2.5, size=2))})
    return cases


def record_block_at_init(rec, i: int, case: dict) -> None:
    """At init: the gate names, their largest |value| and the output (x itself). Then, with the
    attention gate opened to 1 (ff gate 0), the raw outputs on the stored media and on other
    media go to the parent (checks.reads_media): the block must read the media."""
    torch.manual_seed(case["seed"])
    block = GatedCrossAttentionBlock(case["dim"], case["heads"])
    gates = gate_parameters(block)
    rec.exact(f"gate_names[{i}]", sorted(name.rsplit(".", 1)[-1] for name in gates))
    rec.exact(f"gates_at_init[{i}]", max((float(p.detach().abs().max()) for p in gates.values()), default=None))
    x = torch.tensor(case["x"], dtype=torch.float32)
    media = torch.tensor(case["media"], dtype=torch.float32)
    with torch.no_grad():
        out = block(x, media)
    # contract: SPEC §5.8 gates start at 0 and tanh(0) = 0: at init the block returns x itself (up to
    # float32 rounding of the residual sum, far below 1e-6)
    rec.close(f"output_at_init[{i}]", out.numpy(), atol=1e-6)
    set_gates(block, attn=1.0, ff=0.0)
    with torch.no_grad():
        opened = [block(x, m).double().numpy() for m in (media, 2.0 * media.flip(1) + 0.5)]
    rec.check(f"opened_outputs[{i}]", {"x": case["x"], "media": opened[0], "other_media": opened[1]},
              check="reads_media")


def record_gate_scaling(rec, i: int, case: dict) -> None:
    """With one gate at 0 and the other at g, the block adds tanh(g)·branch(x): the additions
    for two values of g (raw, in float64) go to the parent, which checks their ratio is
    tanh(g1) / tanh(g2) and that they are not zero (checks.tanh_scaled); the ratio itself is
    also recorded (it carries the gates-not-tanh hint)."""
    torch.manual_seed(case["seed"])
    block = GatedCrossAttentionBlock(case["dim"], case["heads"])
    x = torch.tensor(case["x"], dtype=torch.float64)
    media = torch.tensor(case["media"], dtype=torch.float64)
    block = block.double()
    g1, g2 = case["gates"]
    for branch in ("attn", "ff"):
        added = []
        for g in (g1, g2):
            set_gates(block, attn=g if branch == "attn" else 0.0, ff=g if branch == "ff" else 0.0)
            with torch.no_grad():
                added.append((block(x, media) - x).flatten())
        if branch == "attn":  # the attention branch also on other media: it must read them
            with torch.no_grad():
                added.append((block(x, 2.0 * media.flip(1) + 0.5) - x).flatten())
        rec.check(f"{branch}_added[{i}]", [a.numpy() for a in added], check="tanh_scaled")
        ratio = float(added[0] @ added[1] / (added[1] @ added[1]))  # carries the gates-not-tanh hint
        rec.close(f"{branch}_ratio[{i}]", ratio, atol=1e-6, rtol=1e-5)


def record_both_gates(rec, i: int, case: dict) -> None:
    """Both gates open at once (attn_gate = a, ff_gate = f, found by name; a != f): the block
    is the gated cross-attention, then the gated MLP on its result. The block's own output
    goes to the parent (checks.gates_compose) beside the same computation built from the block
    with one gate open at a time (block(a, 0), then block(0, f) on its result: exact for any
    cross-attention and MLP, whatever their layers, and for any shape of gate), and beside
    the two wrong orders a block may follow: the MLP first, or both branches reading x; and
    its output on other media."""
    torch.manual_seed(case["seed"])
    block = GatedCrossAttentionBlock(case["dim"], case["heads"]).double().eval()
    x = torch.tensor(case["x"], dtype=torch.float64)
    media = torch.tensor(case["media"], dtype=torch.float64)
    a, f = case["gates"][1], case["gates"][0]

    def run(attn: float, ff: float, h: torch.Tensor) -> torch.Tensor:
        set_gates(block, attn=attn, ff=ff)
        with torch.no_grad():
            return block(h, media)

    attn_only = run(a, 0.0, x)
    outputs = {"x": x, "both": run(a, f, x), "composed": run(0.0, f, attn_only),
               "ff_first": run(a, 0.0, run(0.0, f, x)),
               "parallel": attn_only + (run(0.0, f, x) - x)}
    media = 2.0 * media.flip(1) + 0.5  # other media: the output must change with them
    outputs["other_media"] = run(a, f, x)
    rec.check(f"both_gates[{i}]", {k: v.numpy() for k, v in outputs.items()},
              check="gates_compose")


def build_lm(kind: str, seed: int, vocab: int = 61, hidden: int = 32, layers: int = 3, heads: int = 4):
    """A small, randomly initialised Hugging Face causal LM (no download): "gpt2" or "llama"."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import transformers

    transformers.logging.set_verbosity_error()
    torch.manual_seed(seed)
    if kind == "gpt2":
        config = transformers.GPT2Config(vocab_size=vocab, n_positions=64, n_embd=hidden, n_layer=layers,
                                         n_head=heads, bos_token_id=0, eos_token_id=0)
        return transformers.GPT2LMHeadModel(config)
    config = transformers.LlamaConfig(vocab_size=vocab, hidden_size=hidden, intermediate_size=2 * hidden,
                                      num_hidden_layers=layers, num_attention_heads=heads,
                                      num_key_value_heads=heads // 2, max_position_embeddings=64,
                                      bos_token_id=0, eos_token_id=0, pad_token_id=0)
    return transformers.LlamaForCausalLM(config)


def lm_cases(rng: np.random.Generator, kinds: list[str], everys: list[int]) -> list[dict]:
    cases = []
    for kind, every in zip(kinds, everys):
        batch, length, hidden = 2, int(rng.integers(4, 9)), 32
        mask = np.ones((batch, length), dtype=np.int64)
        mask[1, : int(rng.integers(1, length - 1))] = 0  # left padding in the second row
        cases.append({"kind": kind, "every": every, "seed": int(rng.integers(2**31)),
                      "input_ids": rng.integers(0, 61, size=(batch, length)), "attention_mask": mask,
                      "targets": rng.integers(0, 61, size=(batch, length)),
                      "media": rng.normal(size=(batch, int(rng.integers(1, 6)), hidden))})
    return cases


def _logits(output):
    return getattr(output, "logits", output)


def record_flamingo_at_init(rec, i: int, case: dict) -> None:
    """The wrapped LM's logits at init, with and without an attention mask, equal the bare LM's
    (goldens: the LM is built from the stored seed). Then every gate is opened to 1 (found by
    name, SPEC §5.8) and the raw logits on the stored media and on other media go to the parent
    (checks.reads_media): the inserted blocks must read the media."""
    lm = build_lm(case["kind"], case["seed"]).eval()
    ids = torch.tensor(case["input_ids"])
    mask = torch.tensor(case["attention_mask"])
    media = torch.tensor(case["media"], dtype=torch.float32)
    with torch.no_grad():
        model = FlamingoStyleLM(lm, every=case["every"])
        model.eval()
        wrapped = {"mask": _logits(model(ids, media, attention_mask=mask)), "no_mask": _logits(model(ids, media))}
    for key in ("mask", "no_mask"):
        rec.close(f"logits_{key}[{i}]", wrapped[key].numpy(), atol=1e-5, rtol=1e-5)
    for p in gate_parameters(model).values():
        with torch.no_grad():
            p.fill_(1.0)
    with torch.no_grad():
        opened = [_logits(model(ids, m, attention_mask=mask)).double().numpy()
                  for m in (media, 2.0 * media.flip(1) + 0.5)]
    rec.check(f"opened_logits[{i}]", {"x": wrapped["mask"].double().numpy(), "media": opened[0],
                                      "other_media": opened[1]}, check="reads_media")


def record_flamingo_frozen(rec, i: int, case: dict) -> None:
    """Wrapping freezes the LM; at init a backward gives non-zero gradient to gates only; a few
    optimizer steps leave every LM weight as it was and move the logits, differently for other
    media (checks.reads_media). The LM's parameters
    are the Parameter objects recorded before wrapping (found by identity, never by name or
    place: the wrapper may move or wrap the LM's layers); gates are found by name (SPEC §5.8)."""
    lm = build_lm(case["kind"], case["seed"])
    lm_params = list(lm.parameters())
    before = [p.detach().clone() for p in lm_params]
    ids, mask = torch.tensor(case["input_ids"]), torch.tensor(case["attention_mask"])
    media, targets = torch.tensor(case["media"], dtype=torch.float32), torch.tensor(case["targets"])
    with torch.no_grad():
        bare = lm.eval()(input_ids=ids, attention_mask=mask).logits
    model = FlamingoStyleLM(lm, every=case["every"])
    model.eval()  # no dropout: the steps below are deterministic
    rec.exact(f"lm_parameters_trainable[{i}]", sum(1 for p in lm_params if p.requires_grad))

    def loss_fn():
        logits = _logits(model(ids, media, attention_mask=mask))
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    loss_fn().backward()
    gate_ids = {id(p) for p in gate_parameters(model).values()}
    others = [p for p in model.parameters() if id(p) not in gate_ids]
    # contract: SPEC §5.8 "at init only the gates receive non-zero gradient": tanh(0) = 0 makes
    # every other gradient exactly zero in any dtype, so the largest one is compared with 0.
    rec.close(f"largest_non_gate_grad[{i}]",
              max((float(p.grad.abs().max()) for p in others if p.grad is not None), default=0.0), atol=0.0)
    gate_grads = [p.grad.double().flatten().numpy() for p in gate_parameters(model).values() if p.grad is not None]
    rec.check(f"gate_gradient[{i}]", float(sum(np.abs(g).sum() for g in gate_grads)), check="is_positive")
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(trainable, lr=0.5)
    for _ in range(3):
        optimizer.step()
        optimizer.zero_grad()
        loss_fn().backward()
    # contract: SPEC §5.8 "freezes every parameter of lm": a frozen weight is bitwise unchanged.
    drift = max(float((p.detach() - b).abs().max()) for p, b in zip(lm_params, before))
    rec.close(f"lm_weights_moved[{i}]", drift, atol=0.0)
    with torch.no_grad():
        after = [_logits(model(ids, m, attention_mask=mask)).double().numpy()
                 for m in (media, 2.0 * media.flip(1) + 0.5)]
    rec.close(f"bare_logits[{i}]", bare.numpy(), atol=1e-5, rtol=1e-5)
    rec.check(f"trained_logits[{i}]", {"x": bare.double().numpy(), "media": after[0], "other_media": after[1]},
              check="reads_media")


# ================================================================ Task 5: rope_2d
def rope_cases(rng: np.random.Generator, n: int) -> list[dict]:
    """Non-square grids (row/column mix-ups show), two widths per case (1D positions show), and
    one query/key pair placed at every patch."""
    cases = []
    for _ in range(n):
        h = int(rng.integers(2, 5))
        w1, w2 = (int(v) for v in rng.choice(np.arange(2, 7), size=2, replace=False))
        if w1 == h:
            w1 = h + 1
        d = int(rng.choice([8, 12, 16]))
        cases.append({"grid_h": h, "widths": [w1, w2], "dim": d, "base": float(rng.choice([10000.0, 100.0])),
                      "q": rng.normal(size=d), "k": rng.normal(size=d),
                      "x": rng.normal(size=(2, h * w1, d))})
    return cases


ROPE_TOL = {"atol": 1e-5, "rtol": 1e-5}  # unit-scale inputs, a handful of float32 operations


def record_rope(rec, i: int, case: dict) -> None:
    """Rotations keep norms and leave patch (0, 0) alone; the score matrices of the same q and k
    on two grid widths go to the parent, which checks the relative (Δrow, Δcol) property."""
    h, (w1, w2), base = case["grid_h"], case["widths"], case["base"]
    x = torch.tensor(case["x"], dtype=torch.float64)
    out = rope_2d(x, h, w1, base=base)
    rec.exact(f"shape[{i}]", [list(out.shape), str(out.dtype)])
    # contract: SPEC §5.8 fixes rope_2d's output dtype (x's), not the arithmetic: float32 inside,
    # as transformers' Qwen2-VL vision rotary computes it, is correct (ROPE_TOL, float32 level).
    rec.close(f"norms[{i}]", out.norm(dim=-1).numpy(), **ROPE_TOL)
    rec.close(f"first_patch[{i}]", out[:, 0].numpy(), **ROPE_TOL)
    # contract: the starter's docstring fixes the frequencies, θ_i = base^(−4i/D). The diagonal
    # of the rotation one column right (patch 1) and one row down (patch w1), sorted, is cos θ_i
    # twice per turned plane and 1 for the other half, whatever the pairing layout (SPEC: free).
    probe = torch.eye(case["dim"], dtype=torch.float64)[:, None, :].repeat(1, h * w1, 1)
    turned = rope_2d(probe, h, w1, base=base)[:, [1, w1], :]  # (D, 2, D): row j is e_j turned
    diagonal = torch.diagonal(turned, dim1=0, dim2=2)  # (2, D)
    rec.close(f"rotation_diagonal[{i}]", torch.sort(diagonal, dim=-1).values.numpy(), **ROPE_TOL)
    scores = []
    for w in (w1, w2):
        q = torch.tensor(case["q"], dtype=torch.float64).repeat(h * w, 1)
        k = torch.tensor(case["k"], dtype=torch.float64).repeat(h * w, 1)
        scores.append((rope_2d(q, h, w, base=base) @ rope_2d(k, h, w, base=base).T).numpy())
    rec.check(f"scores[{i}]", scores, check="relative_2d")


# ================================================================ Task 6: resolution budget
def size_cases(rng: np.random.Generator, n_random: int) -> list[list[int]]:
    """Real image sizes, sides of 28k + 14 (rounding ties), tiny, huge and extreme aspect ratios
    (200 is allowed, above it is a ValueError), then random sizes."""
    sizes = [[1080, 1920], [3024, 4032], [224, 224], [336, 336], [768, 1024], [1, 1], [13, 13],
             [42, 70], [70, 42], [98, 126], [14, 14], [28, 28], [4000, 20], [20, 4000], [10, 2000],
             [10, 2001], [3, 601], [600, 3], [8000, 8000], [1003520, 5018], [56, 11200], [27, 5400]]
    for _ in range(n_random // 2):  # rounding ties on both sides
        sizes.append([28 * int(rng.integers(0, 80)) + 14, 28 * int(rng.integers(0, 80)) + 14])
    for _ in range(n_random - n_random // 2):
        side = int(rng.integers(1, 5000))
        sizes.append([side, int(np.clip(side * np.exp(rng.uniform(-6, 6)), 1, 60000))])
    return sizes


def record_resize(rec, cases: dict) -> None:
    """For every size and every pixel limit pair (null: the defaults, nothing passed), the
    resized [h, w] and the token count, or the exception's name; judged in the parent against
    transformers' smart_resize."""
    for j, limits in enumerate(cases["limits"]):
        extra = () if limits is None else tuple(limits)

        def resize(h, w, extra=extra):
            return [int(v) for v in qwen2vl_resize(h, w, *extra)]

        def tokens(h, w, extra=extra):
            return int(qwen2vl_num_tokens(h, w, *extra))

        rec.check(f"resize[{j}]", [outcome(resize, h, w) for h, w in cases["sizes"]],
                  check="equals_smart_resize")
        rec.check(f"tokens[{j}]", [outcome(tokens, h, w) for h, w in cases["sizes"]],
                  check="equals_smart_resize")


def fit_cases(rng: np.random.Generator, n: int) -> list[dict]:
    """Sets of real-looking images with budgets that hold their defaults, that force shrinking,
    and that cannot hold even min_pixels (4 tokens) per image."""
    cases = []
    for k in range(n):
        count = int(rng.integers(1, 7))
        sizes = []
        for _ in range(count):
            side = int(rng.integers(200, 4000))
            sizes.append([side, int(side * rng.uniform(0.4, 2.5))])
        kind = ["fits", "shrink", "shrink", "impossible"][k % 4]
        if kind == "fits":
            budget = int(rng.integers(1, 4)) * 1280 * count + 10
        elif kind == "shrink":
            budget = int(rng.integers(16 * count, 40 * count + 1))
        else:
            budget = int(rng.integers(0, 4 * count))
        cases.append({"sizes": sizes, "max_tokens": budget})
    return cases


def record_fit(rec, i: int, case: dict) -> None:
    sizes = [tuple(s) for s in case["sizes"]]
    result = outcome(lambda: [[int(v) for v in hw] for hw in fit_images_to_context(sizes, case["max_tokens"])])
    rec.check(f"fit[{i}]", result, check="valid_fit")


# ================================================================ Task 7: CHAIR
OBJECTS = ["dog", "cat", "person", "car", "bicycle", "chair", "table", "cup", "Dog", "dining table"]


def chair_cases(rng: np.random.Generator, n: int) -> list[dict]:
    """Captions with repeated mentions, mentions differing only by case (exact matching), captions
    with no mention at all, and caption sets of uneven lengths (pooled ≠ averaged)."""
    cases = []
    for _ in range(n):
        captions = int(rng.integers(2, 8))
        mentioned, true = [], []
        for c in range(captions):
            present = sorted(set(rng.choice(OBJECTS[:8], size=int(rng.integers(1, 5))).tolist()))
            count = 0 if c == 1 else int(rng.integers(1, 7))
            said = [str(rng.choice(present)) if rng.random() < 0.6 else str(rng.choice(OBJECTS))
                    for _ in range(count)]
            if said and rng.random() < 0.5:
                said.append(said[0])  # a repeated mention counts twice
            mentioned.append(said)
            true.append(present)
        cases.append({"mentioned": mentioned, "true": true})
    return cases


def record_chair(rec, i: int, case: dict) -> None:
    chair_i, chair_s = chair_scores(case["mentioned"], case["true"])
    # contract: SPEC §5.8 CHAIR is a ratio of counts: every correct computation gives the same
    # fraction to within an ulp or two of 1 (atol 1e-12; averaging per caption is off by ~0.01)
    rec.close(f"chair_i[{i}]", float(chair_i), atol=1e-12)
    rec.close(f"chair_s[{i}]", float(chair_s), atol=1e-12)
