"""CLIP's symmetric InfoNCE loss, and zero-shot classification by cosine similarity."""

import math

import torch
import torch.nn.functional as F  # noqa: F401

MAX_LOGIT_SCALE = 100.0  # CLIP caps the temperature-scaled logits' multiplier at 100


def clip_loss(image_features: torch.Tensor, text_features: torch.Tensor,
              logit_scale: float | torch.Tensor) -> torch.Tensor:
    """Symmetric contrastive loss of a batch of N matching (image, text) pairs.

    image_features, text_features: (N, d) float tensors; row k of each is one pair.
    logit_scale: the log of the inverse temperature (a float, or a 0-d tensor that may require
    grad; CLIP initialises it to log(1 / 0.07)).
    Returns a 0-d tensor: l2-normalise every row, logits = min(exp(logit_scale), 100) ·
    image @ textᵀ (N × N), then the mean of cross_entropy(logits, arange(N)) (each image
    picks its text) and cross_entropy(logitsᵀ, arange(N)) (each text picks its image), each
    averaged over the batch. Above ln 100 the cap makes logit_scale's gradient zero.
    """
    ### BEGIN SOLUTION
    image = F.normalize(image_features, dim=-1)
    text = F.normalize(text_features, dim=-1)
    log_scale = torch.as_tensor(logit_scale, dtype=image.dtype)
    scale = log_scale.exp().clamp(max=MAX_LOGIT_SCALE)
    logits = scale * image @ text.T
    labels = torch.arange(logits.shape[0])
    return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
    ### END SOLUTION


def zero_shot_classify(image_features: torch.Tensor, class_features: torch.Tensor) -> torch.Tensor:
    """Class index per image: the class whose feature row has the highest cosine similarity.

    image_features: (N, d); class_features: (C, d), one row per class prompt embedding.
    Returns an int64 (Long) tensor of shape (N,) with values in 0 .. C-1.
    """
    ### BEGIN SOLUTION
    image = F.normalize(image_features, dim=-1)
    classes = F.normalize(class_features, dim=-1)
    return (image @ classes.T).argmax(dim=-1)
    ### END SOLUTION


CLIP_INIT_LOGIT_SCALE = math.log(1 / 0.07)  # CLIP's initial logit_scale
