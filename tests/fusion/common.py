"""Shared by fusion's public and hidden tests: input generators and the recording loops both
test sets run on their own inputs. Inputs and builders only: no expected value lives here.

Nothing here imports transformers at module level (it takes seconds): only the Task 4 model
builder does, when a test calls it.
"""

import math
import os

import numpy as np
import torch

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


def outcome(fn, *args):
    """fn(*args) as plain data, or the name of the exception it raised."""
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - an exception is an observation here
        return type(e).__name__


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


def record_clip_loss(rec, i: int, case: dict) -> None:
    """The loss and the gradients of both feature matrices (and of logit_scale when it is a
    0-d tensor) in float64."""
    image = torch.tensor(case["image"], dtype=torch.float64, requires_grad=True)
    text = torch.tensor(case["text"], dtype=torch.float64, requires_grad=True)
    scale = case["logit_scale"]
    if case["as_tensor"]:
        scale = torch.tensor(scale, dtype=torch.float64, requires_grad=True)
    loss = clip_loss(image, text, scale)
    rec.close(f"loss[{i}]", float(loss.detach()), atol=1e-12, rtol=1e-9)
    loss.backward()
    rec.close(f"grad_image[{i}]", image.grad.numpy(), atol=1e-12, rtol=1e-8)
    rec.close(f"grad_text[{i}]", text.grad.numpy(), atol=1e-12, rtol=1e-8)
    if case["as_tensor"]:
        grad = scale.grad
        rec.close(f"grad_logit_scale[{i}]", None if grad is None else float(grad), atol=1e-12, rtol=1e-8)


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


def record_resampler(rec, i: int, case: dict) -> None:
    """Output shape for two media lengths; permuting the media tokens changes nothing; each batch
    element is resampled on its own; and the output does depend on the media."""
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
        permuted = resampler(media[:, perm])
        rec.close(f"permutation_change[{i}]", float((permuted - out).abs().max()), atol=1e-5)
        alone = torch.cat([resampler(media[b : b + 1]) for b in range(media.shape[0])])
        rec.close(f"batch_mixing[{i}]", float((alone - out).abs().max()), atol=1e-5)
        changed = resampler(media.flip(0))  # another batch of media: the output must move
        rec.check(f"media_effect[{i}]", float((changed - out).abs().max()), check="is_positive")


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
    torch.manual_seed(case["seed"])
    block = GatedCrossAttentionBlock(case["dim"], case["heads"])
    gates = gate_parameters(block)
    rec.exact(f"gate_names[{i}]", sorted(name.rsplit(".", 1)[-1] for name in gates))
    rec.exact(f"gates_at_init[{i}]", max((float(p.detach().abs().max()) for p in gates.values()), default=None))
    x = torch.tensor(case["x"], dtype=torch.float32)
    with torch.no_grad():
        out = block(x, torch.tensor(case["media"], dtype=torch.float32))
    rec.close(f"output_at_init[{i}]", out.numpy(), atol=1e-6)


def record_gate_scaling(rec, i: int, case: dict) -> None:
    """With one gate at 0 and the other at g, the block adds tanh(g)·branch(x): the ratio of the
    additions for two values of g is tanh(g1) / tanh(g2) whatever the branch computes."""
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
        ratio = float(added[0] @ added[1] / (added[1] @ added[1]))
        rec.close(f"{branch}_ratio[{i}]", ratio, atol=1e-9, rtol=1e-6)


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
    """The wrapped LM's logits at init, with and without an attention mask, equal the bare LM's."""
    lm = build_lm(case["kind"], case["seed"]).eval()
    ids = torch.tensor(case["input_ids"])
    mask = torch.tensor(case["attention_mask"])
    media = torch.tensor(case["media"], dtype=torch.float32)
    with torch.no_grad():
        bare = {"mask": lm(input_ids=ids, attention_mask=mask).logits, "no_mask": lm(input_ids=ids).logits}
        model = FlamingoStyleLM(lm, every=case["every"])
        model.eval()
        wrapped = {"mask": _logits(model(ids, media, attention_mask=mask)), "no_mask": _logits(model(ids, media))}
    for key in ("mask", "no_mask"):
        rec.close(f"logits_{key}[{i}]", wrapped[key].numpy(), atol=1e-5, rtol=1e-5)
        rec.close(f"change_from_bare_{key}[{i}]", float((wrapped[key] - bare[key]).abs().max()), atol=1e-6)


def record_flamingo_frozen(rec, i: int, case: dict) -> None:
    """Wrapping freezes the LM; at init a backward gives non-zero gradient to gates only; a few
    optimizer steps leave every LM weight as it was and move the logits."""
    lm = build_lm(case["kind"], case["seed"])
    before = {name: p.detach().clone() for name, p in lm.named_parameters()}
    ids, mask = torch.tensor(case["input_ids"]), torch.tensor(case["attention_mask"])
    media, targets = torch.tensor(case["media"], dtype=torch.float32), torch.tensor(case["targets"])
    with torch.no_grad():
        bare = lm.eval()(input_ids=ids, attention_mask=mask).logits
    model = FlamingoStyleLM(lm, every=case["every"])
    model.eval()  # no dropout: the steps below are deterministic
    rec.exact(f"lm_trainable[{i}]", sorted(name for name, p in lm.named_parameters() if p.requires_grad))

    def loss_fn():
        logits = _logits(model(ids, media, attention_mask=mask))
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    loss_fn().backward()
    gates = gate_parameters(model)
    nonzero = sorted(name for name, p in model.named_parameters()
                     if p.grad is not None and bool(p.grad.abs().max() > 0) and name not in gates)
    rec.exact(f"non_gate_params_with_grad[{i}]", nonzero)
    gate_grad = sum(float(p.grad.abs().sum()) for p in gates.values() if p.grad is not None)
    rec.check(f"gate_gradient[{i}]", gate_grad, check="is_positive")
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(trainable, lr=0.5)
    for _ in range(3):
        optimizer.step()
        optimizer.zero_grad()
        loss_fn().backward()
    drift = max(float((p.detach() - before[name]).abs().max()) for name, p in lm.named_parameters())
    rec.close(f"lm_weights_moved[{i}]", drift, atol=0.0)
    with torch.no_grad():
        after = _logits(model(ids, media, attention_mask=mask))
    rec.check(f"logits_moved[{i}]", float((after - bare).abs().max()), check="is_positive")


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


def record_rope(rec, i: int, case: dict) -> None:
    """Rotations keep norms and leave patch (0, 0) alone; the score matrices of the same q and k
    on two grid widths go to the parent, which checks the relative (Δrow, Δcol) property."""
    h, (w1, w2), base = case["grid_h"], case["widths"], case["base"]
    x = torch.tensor(case["x"], dtype=torch.float64)
    out = rope_2d(x, h, w1, base=base)
    rec.exact(f"shape[{i}]", [list(out.shape), str(out.dtype)])
    rec.close(f"norms[{i}]", out.norm(dim=-1).numpy(), atol=1e-10, rtol=1e-10)
    rec.close(f"first_patch[{i}]", out[:, 0].numpy(), atol=1e-12)
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
    rec.close(f"chair_i[{i}]", float(chair_i), atol=1e-12)
    rec.close(f"chair_s[{i}]", float(chair_s), atol=1e-12)
