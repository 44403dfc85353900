"""The handout's demonstration and table, from the reference solution (instructors).

    .venv/bin/python assignments/08_fusion/make_plots.py

1. A tiny CLIP: an image encoder (an MLP on 16 x 16 pixels) and a text encoder (a bag of word
   embeddings) trained with `clip_loss` on generated pictures of coloured shapes captioned
   "a <colour> <shape>". Four of the 16 (colour, shape) pairs never appear in training; at the end
   `zero_shot_classify` picks, for each test image, the best of all 16 captions. Writes
   clip_demo.png (accuracy during training, seen vs held-out pairs, and example images) and
   prints the final accuracies. About 20 s of CPU time (one thread).
(The resolution-budget table is a generated block of the handout: make_tables.py.)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import torch
from torch import nn

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "solutions"))
from fusion import clip_loss, zero_shot_classify

COLOURS = {"red": (0.9, 0.1, 0.1), "green": (0.1, 0.8, 0.2), "blue": (0.15, 0.3, 0.95), "yellow": (0.95, 0.85, 0.1)}
SHAPES = ["circle", "square", "triangle", "cross"]
SIDE = 16
HELD_OUT = {("red", "square"), ("green", "triangle"), ("blue", "cross"), ("yellow", "circle")}  # one per row/column
PAIRS = [(c, s) for c in COLOURS for s in SHAPES]


def draw(colour: str, shape: str, rng: np.random.Generator) -> np.ndarray:
    """A SIDE x SIDE RGB picture: a shape of random size and place on a noisy grey background."""
    r = rng.uniform(4.5, 6.5)
    cy, cx = rng.uniform(r, SIDE - r, size=2)
    y, x = np.mgrid[0:SIDE, 0:SIDE] + 0.5
    dy, dx = y - cy, x - cx
    mask = {"circle": dy**2 + dx**2 <= r**2,
            "square": (np.abs(dy) <= 0.8 * r) & (np.abs(dx) <= 0.8 * r),
            "triangle": (dy <= 0.8 * r) & (dy >= -r) & (np.abs(dx) <= (dy + r) / 1.8 * 0.8),
            "cross": ((np.abs(dy) <= 0.3 * r) | (np.abs(dx) <= 0.3 * r)) & (np.abs(dy) <= r) & (np.abs(dx) <= r)}[shape]
    image = np.full((SIDE, SIDE, 3), rng.uniform(0.3, 0.6)) + rng.normal(0, 0.05, size=(SIDE, SIDE, 3))
    image[mask] = np.asarray(COLOURS[colour]) * rng.uniform(0.8, 1.1)
    return np.clip(image, 0, 1).astype(np.float32)


def dataset(pairs, n, rng):
    labels = rng.integers(0, len(pairs), size=n)
    images = np.stack([draw(*pairs[k], rng) for k in labels])
    return torch.tensor(images).flatten(1), [pairs[k] for k in labels]


class TinyClip(nn.Module):
    def __init__(self, dim: int = 32):
        super().__init__()
        self.image = nn.Sequential(nn.Linear(SIDE * SIDE * 3, 256), nn.GELU(), nn.Linear(256, 128), nn.GELU(),
                                   nn.Linear(128, dim))
        self.vocab = {w: i for i, w in enumerate([*COLOURS, *SHAPES])}
        self.words = nn.Embedding(len(self.vocab), dim)
        self.text = nn.Linear(dim, dim)
        self.logit_scale = nn.Parameter(torch.tensor(float(np.log(1 / 0.07))))  # CLIP's initialisation

    def encode_text(self, captions):
        ids = torch.tensor([[self.vocab[c], self.vocab[s]] for c, s in captions])
        return self.text(self.words(ids).sum(dim=1))  # a bag of words: colour + shape


def accuracy(model, images, captions) -> float:
    with torch.no_grad():
        predicted = zero_shot_classify(model.image(images), model.encode_text(PAIRS))
    truth = torch.tensor([PAIRS.index(c) for c in captions])
    return float((predicted == truth).float().mean())


def train_demo(steps: int = 1500, seed: int = 0):
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    seen = [p for p in PAIRS if p not in HELD_OUT]
    test_seen, caps_seen = dataset(seen, 600, rng)
    test_new, caps_new = dataset(sorted(HELD_OUT), 600, rng)
    model = TinyClip()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    history = []
    for step in range(steps + 1):
        if step % 100 == 0:
            history.append((step, accuracy(model, test_seen, caps_seen), accuracy(model, test_new, caps_new)))
        if step == steps:
            break
        # a batch never holds one pair twice: a duplicate caption would be a false negative
        chosen = rng.permutation(len(seen))
        images = torch.tensor(np.stack([draw(*seen[k], rng) for k in chosen])).flatten(1)
        loss = clip_loss(model.image(images), model.encode_text([seen[k] for k in chosen]), model.logit_scale)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return history, (test_new[:8], caps_new[:8]), model


def plot(history, examples, model, path: Path) -> None:
    steps, acc_seen, acc_new = (np.array(v) for v in zip(*history))
    fig = plt.figure(figsize=(10, 3.8))
    ax = fig.add_axes([0.07, 0.14, 0.45, 0.76])
    ax.plot(steps, acc_seen, label="seen (colour, shape) pairs")
    ax.plot(steps, acc_new, label="held-out pairs (never in training)")
    ax.axhline(1 / len(PAIRS), color="grey", ls=":", label=f"chance (1/{len(PAIRS)})")
    ax.set_xlabel("training step (batches of distinct pairs)")
    ax.set_ylabel("zero-shot accuracy over 16 captions")
    ax.set_ylim(0, 1.02)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title("tiny CLIP on coloured shapes")
    images, captions = examples
    with torch.no_grad():
        predicted = zero_shot_classify(model.image(images), model.encode_text(PAIRS))
    for k in range(8):
        sub = fig.add_axes([0.56 + 0.105 * (k % 4), 0.52 - 0.42 * (k // 4), 0.095, 0.33])
        sub.imshow(images[k].reshape(SIDE, SIDE, 3).numpy(), interpolation="nearest")
        sub.set_xticks([])
        sub.set_yticks([])
        guess = " ".join(PAIRS[int(predicted[k])])
        sub.set_title(guess, fontsize=7, color="green" if PAIRS[int(predicted[k])] == captions[k] else "red")
    fig.text(0.56, 0.93, "held-out test images, zero-shot caption", fontsize=9)
    fig.savefig(path, dpi=110)


def main() -> None:
    torch.set_num_threads(1)
    start = time.perf_counter()
    history, examples, model = train_demo()
    plot(history, examples, model, HERE / "clip_demo.png")
    _, seen, new = history[-1]
    print(f"tiny CLIP after {history[-1][0]} steps: zero-shot accuracy {seen:.1%} on seen pairs, "
          f"{new:.1%} on held-out pairs (chance {1 / len(PAIRS):.1%}); {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
