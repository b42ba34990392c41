"""A very small GPT (pre-LN, learned positions), nanoGPT style, that accepts either padding side.

Positions are counted from each row's first real token, so a left-padded conversation sees the
same positions as a right-padded one; padded keys are masked out of attention. A padded query
row still attends to itself, so it never sees an all-masked row (which would give NaN).
"""

import math

import torch
import torch.nn as nn

from chatft.data.collate import positions


def attention_mask_4d(attention_mask, T):
    """(B, 1, T, T) boolean: query t may attend to key s (causal, real keys, plus itself)."""
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    if attention_mask is None:
        return causal[None, None]
    keys = attention_mask[:, None, None, :].bool()
    return (causal & keys) | torch.eye(T, dtype=torch.bool)


class SelfAttention(nn.Module):
    def __init__(self, d, n_head, dropout=0.0):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, mask):
        B, T, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (t.reshape(B, T, self.n_head, D // self.n_head).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(D // self.n_head)
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = self.drop(torch.softmax(scores, dim=-1))
        y = (weights @ v).transpose(1, 2).reshape(B, T, D)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, d, n_head, dropout=0.0):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = SelfAttention(d, n_head, dropout)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d), nn.Dropout(dropout))

    def forward(self, x, mask):
        x = x + self.attn(self.ln1(x), mask)
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab_size, d_model=64, n_head=4, n_layer=2, block_size=128, dropout=0.0):
        super().__init__()
        self.block_size = block_size
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(block_size, d_model)
        self.blocks = nn.ModuleList([Block(d_model, n_head, dropout) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.apply(self._init)
        for name, p in self.named_parameters():
            if name.endswith("proj.weight"):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * n_layer))

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)

    def forward(self, input_ids, attention_mask=None):
        B, T = input_ids.shape
        pos = torch.arange(T).expand(B, T) if attention_mask is None else positions(attention_mask)
        x = self.tok_emb(input_ids) + self.pos_emb(pos)
        mask = attention_mask_4d(attention_mask, T)
        for blk in self.blocks:
            x = blk(x, mask)
        return self.lm_head(self.ln_f(x))
