"""clip_loss as Hugging Face's CLIPModel and open_clip's ClipLoss write it, in float32 (their
models' dtype): features cast to float32, normalized by their norm, the multiplier
logit_scale.exp() capped at 100 (a float32 tensor), logits_per_text = text @ imageᵀ · scale,
the mean of the two cross-entropies. zero_shot_classify as open_clip's zero-shot recipe."""

import torch
import torch.nn.functional as F


def contrastive_loss(logits: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits, torch.arange(len(logits), device=logits.device))


def clip_loss(image_features, text_features, logit_scale):
    image_embeds = image_features.float()
    text_embeds = text_features.float()
    image_embeds = image_embeds / image_embeds.norm(p=2, dim=-1, keepdim=True)
    text_embeds = text_embeds / text_embeds.norm(p=2, dim=-1, keepdim=True)
    scale = torch.as_tensor(logit_scale).float().exp()
    scale = torch.minimum(scale, torch.tensor(100.0))
    logits_per_text = torch.matmul(text_embeds, image_embeds.t()) * scale
    caption_loss = contrastive_loss(logits_per_text)
    image_loss = contrastive_loss(logits_per_text.t())
    return (caption_loss + image_loss) / 2.0


def zero_shot_classify(image_features, class_features):
    image = image_features / image_features.norm(dim=-1, keepdim=True)
    classes = class_features / class_features.norm(dim=-1, keepdim=True)
    probs = (100.0 * image @ classes.T).softmax(dim=-1)
    return probs.argmax(dim=-1)
