"""SongFormer: a small decoder-only transformer over syllable tokens."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

TIME_BINS = 96  # 2-ms steps: syllables up to ~190 ms, gaps likewise


class Block(nn.Module):
    def __init__(self, dim, heads, dropout):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.drop = nn.Dropout(dropout)

    def attend(self, x, mask):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
        att = att.masked_fill(~mask, float("-inf"))
        out = F.softmax(att, dim=-1) @ v
        return self.proj(out.transpose(1, 2).reshape(b, t, d))

    def forward(self, x, mask):
        x = x + self.drop(self.attend(self.ln1(x), mask))
        return x + self.drop(self.mlp(self.ln2(x)))


class SongFormer(nn.Module):
    def __init__(self, vocab_size, n_out, dim=48, heads=4, layers=2, max_len=64, dropout=0.0, n_feats=8):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.dur = nn.Embedding(TIME_BINS, dim)
        self.gap = nn.Embedding(TIME_BINS, dim)
        self.meas = nn.Linear(n_feats - 2, dim)
        self.blocks = nn.ModuleList(Block(dim, heads, dropout) for _ in range(layers))
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, n_out)
        self.max_len = max_len
        self.apply(self._init)

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
            if getattr(m, "bias", None) is not None:
                nn.init.zeros_(m.bias)

    @staticmethod
    def time_bins(seconds):
        return (seconds * 500).long().clamp(0, TIME_BINS - 1)

    def forward(self, tokens, feats):
        b, t = tokens.shape
        if t > self.max_len:
            raise ValueError(f"row of {t} tokens, model takes {self.max_len}")
        pos = torch.arange(t, device=tokens.device)
        mask = torch.ones(t, t, dtype=torch.bool, device=tokens.device).tril()
        x = self.tok(tokens) + self.pos(pos)
        x = x + self.dur(self.time_bins(feats[..., 0])) + self.gap(self.time_bins(feats[..., 1]))
        x = x + self.meas(feats[..., 2:])
        for blk in self.blocks:
            x = blk(x, mask)
        return self.head(self.ln(x))
