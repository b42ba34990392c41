"""A bag-of-embeddings baseline (fastText-style): mean of token embeddings, one hidden layer, linear head.

Used by `sweep.py` and `compare_runs.py` as the yardstick the transformer has to beat."""

import torch
import torch.nn as nn


class BagOfEmbeddings(nn.Module):
    def __init__(self, vocab_size, n_classes, n_activity, d_model=64, hidden=64, dropout=0.1):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, d_model, padding_idx=0)
        self.norm = nn.LayerNorm(d_model)
        self.act_norm = nn.BatchNorm1d(n_activity)
        self.act_proj = nn.Linear(n_activity, d_model)
        self.hidden = nn.Linear(d_model, hidden)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(hidden, n_classes)
        nn.init.normal_(self.emb.weight, std=0.02)
        with torch.no_grad():
            self.emb.weight[0].zero_()

    def forward(self, ids, lengths, activity):
        t = ids.shape[1]
        keep = (torch.arange(t, device=ids.device)[None, :] < lengths[:, None]).unsqueeze(-1).float()
        pooled = (self.emb(ids) * keep).sum(1) / keep.sum(1).clamp_min(1.0)
        return self.head(self.drop(torch.relu(self.hidden(self.norm(pooled) + self.act_proj(self.act_norm(activity))))))


def build_baseline(model_cfg, vocab_size, n_classes, n_activity):
    return BagOfEmbeddings(vocab_size, n_classes, n_activity, model_cfg.d_model, model_cfg.d_ff, model_cfg.dropout)
