"""Multi-head self-attention over a session's events."""

import math

import torch
import torch.nn.functional as F
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, d_model, n_heads, dropout=0.0, impl="sdpa"):
        super().__init__()
        if d_model % n_heads:
            raise ValueError("d_model must be a multiple of n_heads")
        if impl not in ("sdpa", "eager"):
            raise ValueError(f"unknown attention implementation {impl!r}")
        self.n_heads, self.d_head, self.impl = n_heads, d_model // n_heads, impl
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.dropout = dropout

    def forward(self, x, mask):
        """x [B, L, D]; mask [B, L], 1 on events and 0 on padding."""
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.n_heads, self.d_head).permute(2, 0, 3, 1, 4)
        keys = mask[:, None, None, :]
        p = self.dropout if self.training else 0.0
        if self.impl == "sdpa":
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=keys, dropout_p=p)
        else:
            scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
            scores = scores.masked_fill(keys == 0, float("-inf"))
            attn = F.dropout(torch.softmax(scores, dim=-1), p=p, training=self.training)
            y = attn @ v
        return self.out(y.transpose(1, 2).reshape(b, n, d))
