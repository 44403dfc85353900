"""The reference's wrapper with a gated block that computes in float32 whatever the input's
dtype (cast back at the end) and keeps 0-d gates (their shape is free)."""

import math

import torch
import torch.nn.functional as F
from torch import nn

from .attention import MultiHeadAttention, feed_forward  # noqa: F401


class GatedCrossAttentionBlock(nn.Module):
    """x + tanh(attn_gate)·xattn(norm(x), media), then x + tanh(ff_gate)·ff(x), every product in
    float32 (parameters cast at use, input cast in, result cast back to x's dtype)."""

    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(dim)
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_k = nn.Linear(dim, dim, bias=False)
        self.to_v = nn.Linear(dim, dim, bias=False)
        self.to_out = nn.Linear(dim, dim, bias=False)
        self.ff_norm = nn.LayerNorm(dim)
        self.ff_in = nn.Linear(dim, 2 * dim)
        self.ff_out = nn.Linear(2 * dim, dim)
        self.attn_gate = nn.Parameter(torch.tensor(0.0))
        self.ff_gate = nn.Parameter(torch.tensor(0.0))

    @staticmethod
    def _linear(layer, t):
        bias = None if layer.bias is None else layer.bias.float()
        return F.linear(t, layer.weight.float(), bias)

    @staticmethod
    def _norm(layer, t):
        return F.layer_norm(t, layer.normalized_shape, layer.weight.float(), layer.bias.float(), layer.eps)

    def forward(self, x: torch.Tensor, media: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        h, m = x.float(), media.float()
        b, n, dim = h.shape

        def split(t):
            return t.reshape(t.shape[0], t.shape[1], self.heads, dim // self.heads).transpose(1, 2)

        q = split(self._linear(self.to_q, self._norm(self.norm, h)))
        k, v = split(self._linear(self.to_k, m)), split(self._linear(self.to_v, m))
        weights = (q @ k.transpose(-1, -2) / math.sqrt(dim // self.heads)).softmax(dim=-1)
        attn = self._linear(self.to_out, (weights @ v).transpose(1, 2).reshape(b, n, dim))
        h = h + self.attn_gate.float().tanh() * attn
        ff = self._linear(self.ff_out, F.gelu(self._linear(self.ff_in, self._norm(self.ff_norm, h))))
        h = h + self.ff_gate.float().tanh() * ff
        return h.to(dtype)


def decoder_layers(lm: nn.Module) -> nn.ModuleList:
    """The ModuleList of a Hugging Face causal LM's decoder layers (GPT-2's transformer.h,
    Llama's model.layers, ...): the one whose length is config.num_hidden_layers."""
    n = lm.config.num_hidden_layers
    for module in lm.modules():
        if isinstance(module, nn.ModuleList) and len(module) == n:
            return module
    raise ValueError(f"no ModuleList of {n} decoder layers found in {type(lm).__name__}")


class FlamingoStyleLM(nn.Module):
    """FlamingoStyleLM(lm, every=1): a frozen causal LM that reads media through gated blocks.

    lm: a Hugging Face causal LM (e.g. GPT2LMHeadModel, LlamaForCausalLM). Every parameter
    of lm gets requires_grad=False; a GatedCrossAttentionBlock(hidden_size, heads) is run
    on the hidden states before every `every`-th decoder layer.
    forward(input_ids, media, attention_mask=None) → logits (B, T, vocab): media is
    (B, M, hidden_size). At initialisation (gates 0) the logits are exactly the bare LM's, and
    a backward reaches only the gates with a non-zero gradient.
    """

    def __init__(self, lm: nn.Module, every: int = 1):
        super().__init__()
        ### BEGIN SOLUTION
        self.lm = lm
        for p in lm.parameters():
            p.requires_grad_(False)
        dim, heads = lm.config.hidden_size, lm.config.num_attention_heads
        layers = decoder_layers(lm)
        self.gated = nn.ModuleList()
        self._media = None

        def run_block_first(block):  # a pre-hook: the layer's input goes through block first
            def hook(module, args, kwargs):
                if self._media is None:  # the LM called on its own: leave it alone
                    return None
                if args:
                    return (block(args[0], self._media), *args[1:]), kwargs
                kwargs["hidden_states"] = block(kwargs["hidden_states"], self._media)
                return args, kwargs
            return hook

        for i in range(0, len(layers), every):
            block = GatedCrossAttentionBlock(dim, heads)
            self.gated.append(block)
            layers[i].register_forward_pre_hook(run_block_first(block), with_kwargs=True)
        ### END SOLUTION

    def forward(self, input_ids: torch.Tensor, media: torch.Tensor,
                attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        ### BEGIN SOLUTION
        self._media = media
        try:
            return self.lm(input_ids=input_ids, attention_mask=attention_mask).logits
        finally:
            self._media = None
        ### END SOLUTION
