"""A small pre-LN transformer encoder with masked mean pooling, the ticket's activity features (batch-normalized,
then projected) added to the pooled text, and a linear classification head."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, d_model, n_heads, dropout):
        super().__init__()
        assert d_model % n_heads == 0
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, pad_mask):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.n_heads, d // self.n_heads).transpose(1, 2) for z in (q, k, v))
        visible = ~pad_mask[:, None, None, :]
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=visible)
        y = y.transpose(1, 2).reshape(b, t, d)
        return self.drop(self.proj(y))


class Block(nn.Module):
    def __init__(self, d_model, n_heads, d_ff, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d_model)
        self.attn = SelfAttention(d_model, n_heads, dropout)
        self.ln_2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(
            nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model), nn.Dropout(dropout)
        )

    def forward(self, x, pad_mask):
        x = x + self.attn(self.ln_1(x), pad_mask)
        return x + self.mlp(self.ln_2(x))


class TicketEncoder(nn.Module):
    def __init__(self, vocab_size, n_classes, max_len, n_activity, d_model=64, n_heads=4, n_layers=2, d_ff=128,
                 dropout=0.1, pool="mean"):
        super().__init__()
        self.pool = pool
        self.tok_emb = nn.Embedding(vocab_size, d_model, padding_idx=0)
        self.pos_emb = nn.Embedding(max_len, d_model)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(Block(d_model, n_heads, d_ff, dropout) for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(d_model)
        self.act_norm = nn.BatchNorm1d(n_activity)
        self.act_proj = nn.Linear(n_activity, d_model)
        self.head = nn.Linear(d_model, n_classes)
        self.apply(self._init)

    @staticmethod
    def _init(module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)
            nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, std=0.02)
            if module.padding_idx is not None:
                with torch.no_grad():
                    module.weight[module.padding_idx].zero_()

    def forward(self, ids, lengths, activity):
        b, t = ids.shape
        pos = torch.arange(t, device=ids.device)
        pad_mask = pos[None, :] >= lengths[:, None]
        x = self.drop(self.tok_emb(ids) + self.pos_emb(pos)[None])
        for block in self.blocks:
            x = block(x, pad_mask)
        x = self.ln_f(x)
        keep = (~pad_mask).unsqueeze(-1).to(x.dtype)
        if self.pool == "mean":
            pooled = (x * keep).sum(1) / keep.sum(1).clamp_min(1.0)
        else:
            pooled = x[:, 0]
        return self.head(pooled + self.act_proj(self.act_norm(activity)))


def build_model(model_cfg, vocab_size, n_classes, max_len, n_activity):
    if model_cfg.kind == "bag":
        from baseline import build_baseline

        return build_baseline(model_cfg, vocab_size, n_classes, n_activity)
    return TicketEncoder(vocab_size, n_classes, max_len, n_activity, model_cfg.d_model, model_cfg.n_heads,
                         model_cfg.n_layers, model_cfg.d_ff, model_cfg.dropout, model_cfg.pool)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
