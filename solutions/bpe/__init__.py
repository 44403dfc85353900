"""bpe: byte-level BPE training and encoding, vocab size vs attention cost, glitch tokens."""

from .analysis import attention_flops, bytes_per_token, unreachable_tokens, unused_tokens
from .tokenizer import Tokenizer
from .train import train_bpe

__all__ = [
    "Tokenizer",
    "attention_flops",
    "bytes_per_token",
    "train_bpe",
    "unreachable_tokens",
    "unused_tokens",
]
