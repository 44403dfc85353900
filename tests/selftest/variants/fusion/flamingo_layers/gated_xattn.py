"""Gated cross-attention as lucidrains/flamingo-pytorch writes it (GatedCrossAttentionBlock:
MaskedCrossAttention + FeedForward, gates nn.Parameter(torch.tensor([0.]))), and the LM wrapped
the way open_flamingo's FlamingoLMMixin does it: every decoder layer inside `lm` is REPLACED
by a FlamingoLayer(gated block or None, decoder layer), so the gates live inside `lm` and the
LM's parameters get new dotted names (transformer.h.0.decoder_layer...)."""

import torch
from torch import einsum, nn


def FeedForward(dim, mult=4):  # noqa: N802 - flamingo-pytorch's name
    inner_dim = int(dim * mult)
    return nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, inner_dim, bias=False), nn.GELU(),
                         nn.Linear(inner_dim, dim, bias=False))


class MaskedCrossAttention(nn.Module):
    def __init__(self, *, dim, dim_head=64, heads=8):
        super().__init__()
        self.scale = dim_head ** -0.5
        self.heads = heads
        inner_dim = dim_head * heads
        self.norm = nn.LayerNorm(dim)
        self.to_q = nn.Linear(dim, inner_dim, bias=False)
        self.to_kv = nn.Linear(dim, inner_dim * 2, bias=False)
        self.to_out = nn.Linear(inner_dim, dim, bias=False)

    def forward(self, x, media):
        h = self.heads
        x = self.norm(x)
        q = self.to_q(x)
        k, v = self.to_kv(media).chunk(2, dim=-1)

        def split(t):  # rearrange(t, 'b n (h d) -> b h n d', h=h)
            b, n, _ = t.shape
            return t.reshape(b, n, h, -1).permute(0, 2, 1, 3)

        q, k, v = split(q), split(k), split(v)
        q = q * self.scale
        sim = einsum("... i d, ... j d -> ... i j", q, k)
        sim = sim - sim.amax(dim=-1, keepdim=True).detach()
        attn = sim.softmax(dim=-1)
        out = einsum("... i j, ... j d -> ... i d", attn, v)
        b, _, n, _ = out.shape
        return self.to_out(out.permute(0, 2, 1, 3).reshape(b, n, -1))


class GatedCrossAttentionBlock(nn.Module):
    def __init__(self, dim, heads, ff_mult=4):
        super().__init__()
        self.attn = MaskedCrossAttention(dim=dim, dim_head=dim // heads, heads=heads)
        self.attn_gate = nn.Parameter(torch.tensor([0.0]))
        self.ff = FeedForward(dim, mult=ff_mult)
        self.ff_gate = nn.Parameter(torch.tensor([0.0]))

    def forward(self, x, media):
        x = self.attn(x, media) * self.attn_gate.tanh() + x
        x = self.ff(x) * self.ff_gate.tanh() + x
        return x


class FlamingoLayer(nn.Module):
    """open_flamingo's wrapper of one decoder layer: the gated block (if any) first."""

    def __init__(self, gated_cross_attn_layer, decoder_layer):
        super().__init__()
        self.gated_cross_attn_layer = gated_cross_attn_layer
        self.decoder_layer = decoder_layer
        self.vis_x = None

    def condition_vis_x(self, vis_x):
        self.vis_x = vis_x

    def forward(self, lang_x, *args, **decoder_layer_kwargs):
        if self.gated_cross_attn_layer is not None and self.vis_x is not None:
            lang_x = self.gated_cross_attn_layer(lang_x, self.vis_x)
        return self.decoder_layer(lang_x, *args, **decoder_layer_kwargs)


def _decoder_layers(lm):
    """(parent module, attribute name) of the ModuleList holding the decoder layers."""
    n = lm.config.num_hidden_layers
    for module in lm.modules():
        for name, child in module.named_children():
            if isinstance(child, nn.ModuleList) and len(child) == n:
                return module, name
    raise ValueError("no decoder layers found")


class FlamingoStyleLM(nn.Module):
    def __init__(self, lm, every=1):
        super().__init__()
        for p in lm.parameters():
            p.requires_grad_(False)
        dim, heads = lm.config.hidden_size, lm.config.num_attention_heads
        parent, name = _decoder_layers(lm)
        old = getattr(parent, name)
        new = nn.ModuleList(
            FlamingoLayer(GatedCrossAttentionBlock(dim, heads) if i % every == 0 else None, layer)
            for i, layer in enumerate(old))
        setattr(parent, name, new)
        self.lm = lm

    def forward(self, input_ids, media, attention_mask=None):
        parent, name = _decoder_layers(self.lm)
        layers = getattr(parent, name)
        for layer in layers:
            layer.condition_vis_x(media)
        try:
            return self.lm(input_ids=input_ids, attention_mask=attention_mask).logits
        finally:
            for layer in layers:
                layer.condition_vis_x(None)
