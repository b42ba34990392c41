import torch
import torch.nn as nn


class GestureNet(nn.Module):
    """Frame encoder -> GRU over time -> masked mean over valid frames -> classifier."""

    def __init__(self, n_channels, n_classes, hidden=32, dropout=0.1):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(n_channels, hidden), nn.ReLU())
        self.rnn = nn.GRU(hidden, hidden)  # sequence-first: (T, B, H)
        self.norm = nn.BatchNorm1d(hidden)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x, lengths):
        B, T, _ = x.shape
        h = self.embed(x)
        h = h.reshape(T, B, -1)
        h, _ = self.rnn(h)
        h = h.transpose(0, 1)
        mask = (torch.arange(T)[None, :] < lengths.view(-1, 1)).unsqueeze(-1)
        pooled = (h * mask).sum(dim=1) / lengths.view(-1, 1)
        return self.head(self.drop(self.norm(pooled)))
