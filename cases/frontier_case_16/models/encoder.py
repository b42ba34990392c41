"""Transformer encoder over a session's event tokens, pooled into an activity classifier."""

import torch
from torch import nn

from models.attention import SelfAttention
from models.masks import padding_mask


class Block(nn.Module):
    def __init__(self, d_model, n_heads, d_ff, dropout, impl):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = SelfAttention(d_model, n_heads, dropout, impl)
        self.ln2 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model))
        self.drop = nn.Dropout(dropout)

    def forward(self, x, mask):
        x = x + self.drop(self.attn(self.ln1(x), mask))
        return x + self.drop(self.ff(self.ln2(x)))


class EventEncoder(nn.Module):
    def __init__(self, vocab_size, n_classes, d_model=48, n_heads=4, n_layers=1, d_ff=96, dropout=0.1,
                 max_len=64, attention="sdpa"):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model, padding_idx=0)
        self.pos = nn.Embedding(max_len + 1, d_model)
        self.gap = nn.Linear(1, d_model)
        self.cls = nn.Parameter(torch.zeros(1, 1, d_model))
        self.blocks = nn.ModuleList(Block(d_model, n_heads, d_ff, dropout, attention) for _ in range(n_layers))
        self.ln = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, n_classes)
        self.drop = nn.Dropout(dropout)

    def forward(self, tokens, lengths, times=None):
        """tokens [B, L] (0 = padding), lengths [B], times [B, L] (seconds) -> logits [B, n_classes]."""
        b, n = tokens.shape
        mask = padding_mask(lengths + 1, n + 1)  # the summary slot in front of the events is always real
        x = self.tok(tokens)
        if times is not None:  # each event also sees the wait since the event before it
            gaps = torch.diff(times, dim=1, prepend=times[:, :1]).clamp_min(0)
            x = x + self.gap(torch.log1p(gaps)[..., None])
        x = torch.cat([self.cls.expand(b, 1, -1), x], dim=1)
        x = self.drop(x + self.pos(torch.arange(n + 1, device=tokens.device))[None])
        for block in self.blocks:
            x = block(x, mask)
        return self.head(self.ln(x[:, 0]))
