"""clip_loss with the multiplier built as a float32 tensor, torch.minimum(exp, torch.tensor(100.))
(exp in float32 when logit_scale is a Python float); zero_shot_classify by cosine in float64."""

import torch
import torch.nn.functional as F


def clip_loss(image_features, text_features, logit_scale):
    image = image_features / image_features.norm(dim=1, keepdim=True)
    text = text_features / text_features.norm(dim=1, keepdim=True)
    log_scale = logit_scale if torch.is_tensor(logit_scale) else torch.tensor(logit_scale)
    multiplier = torch.minimum(log_scale.exp(), torch.tensor(100.0))
    logits_per_image = multiplier * image @ text.t()
    labels = torch.arange(len(image))
    return 0.5 * (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_image.t(), labels))


def zero_shot_classify(image_features, class_features):
    image = F.normalize(image_features.double(), dim=-1)
    classes = F.normalize(class_features.double(), dim=-1)
    return torch.argmax(image @ classes.T, dim=1).long()
