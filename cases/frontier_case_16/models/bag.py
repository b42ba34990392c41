"""Bag-of-events baseline: mean of the event embeddings, no order, then an MLP."""

from torch import nn

from models.masks import masked_mean, padding_mask


class BagOfEvents(nn.Module):
    def __init__(self, vocab_size, n_classes, d_model=48, d_ff=96, dropout=0.1):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model, padding_idx=0)
        self.mlp = nn.Sequential(nn.LayerNorm(d_model), nn.Linear(d_model, d_ff), nn.GELU(), nn.Dropout(dropout),
                                 nn.Linear(d_ff, n_classes))

    def forward(self, tokens, lengths, times=None):
        mask = padding_mask(lengths, tokens.shape[1])
        return self.mlp(masked_mean(self.tok(tokens), mask))
