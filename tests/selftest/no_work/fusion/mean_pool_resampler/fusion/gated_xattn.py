"""Flamingo's tanh-gated cross-attention, and a frozen Hugging Face causal LM wrapped with it."""

import torch
from torch import nn

from .attention import MultiHeadAttention, feed_forward  # noqa: F401


class GatedCrossAttentionBlock(nn.Module):
    """GatedCrossAttentionBlock(dim, heads). forward(x, media): x (B, N, dim), media (B, M, dim).

        x = x + tanh(attn_gate) · xattn(q=x, kv=media)
        x = x + tanh(ff_gate) · ff(x)

    `attn_gate` and `ff_gate` are nn.Parameters with exactly these names, initialised to 0,
    so at initialisation the block returns x unchanged (Flamingo, §2.1 and Fig. 4).
    """

    def __init__(self, dim: int, heads: int):
        super().__init__()
        ### BEGIN SOLUTION
        self.norm = nn.LayerNorm(dim)
        self.xattn = MultiHeadAttention(dim, heads)
        self.ff = feed_forward(dim)
        self.attn_gate = nn.Parameter(torch.zeros(1))
        self.ff_gate = nn.Parameter(torch.zeros(1))
        ### END SOLUTION

    def forward(self, x: torch.Tensor, media: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        x = x + self.attn_gate.tanh() * self.xattn(self.norm(x), media)
        return x + self.ff_gate.tanh() * self.ff(x)
        ### END SOLUTION


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
