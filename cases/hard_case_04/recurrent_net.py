"""Recurrent model for the longer captures: frame embedding, GRU over time, pooled states."""

import torch.nn as nn

from layers import ClassifierHead, FrameEmbed, InputNorm, make_pool, masked_mean


class RecurrentNet(nn.Module):
    """Frame embedding -> GRU -> pooling over each recording's frames -> head.

    The GRU runs over the zero-padded batch; its states on padded frames are never read, since
    the pooling only covers each recording's valid frames and the GRU is unidirectional.
    """

    def __init__(self, n_channels, n_classes, hidden=32, dropout=0.1, layers=1, pool="mean"):
        super().__init__()
        self.hidden = hidden
        self.inputs = InputNorm(n_channels)
        self.embed = FrameEmbed(n_channels, hidden)
        self.rnn = nn.GRU(hidden, hidden, num_layers=layers, dropout=dropout)
        self.pool = make_pool(pool, hidden)
        self.head = ClassifierHead(hidden, n_classes, dropout)

    def states(self, x, lengths):
        """GRU states of every frame, batch-major: (B, T, H)."""
        B, T, _ = x.shape
        frames = self.embed(self.inputs(x, lengths))
        out, _ = self.rnn(frames.view(T, B, self.hidden))
        return out.transpose(0, 1)

    def forward(self, x, lengths):
        h = self.states(x, lengths)
        pooled = masked_mean(h, lengths) if self.pool is None else self.pool(h, lengths)
        return self.head(pooled)
