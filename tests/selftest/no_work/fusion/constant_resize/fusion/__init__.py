"""fusion: CLIP's contrastive loss, the LLaVA projector, Flamingo's resampler and gated
cross-attention, 2D-RoPE, Qwen2-VL's resolution budget, and CHAIR."""

from .contrastive import clip_loss, zero_shot_classify
from .gated_xattn import FlamingoStyleLM, GatedCrossAttentionBlock
from .hallucination import chair_scores
from .projector import LlavaProjector
from .resampler import PerceiverResampler
from .resolution import fit_images_to_context, qwen2vl_num_tokens, qwen2vl_resize
from .rope2d import rope_2d

__all__ = [
    "FlamingoStyleLM",
    "GatedCrossAttentionBlock",
    "LlavaProjector",
    "PerceiverResampler",
    "chair_scores",
    "clip_loss",
    "fit_images_to_context",
    "qwen2vl_num_tokens",
    "qwen2vl_resize",
    "rope_2d",
    "zero_shot_classify",
]
