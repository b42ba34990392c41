"""FrameTagger: a dilated 1-D convolution stack giving tag logits for every frame."""

import torch
from torch import nn


class FrameTagger(nn.Module):
    def __init__(self, in_ch=7, width=32, n_tags=5, kernel=5, dropout=0.1):
        super().__init__()
        pad = kernel // 2
        self.convs = nn.ModuleList([
            nn.Conv1d(in_ch, width, kernel, padding=pad),
            nn.Conv1d(width, width, kernel, padding=2 * pad, dilation=2),
            nn.Conv1d(width, width, kernel, padding=4 * pad, dilation=4),
        ])
        self.drop = nn.Dropout(dropout)
        self.head = nn.Conv1d(width, n_tags, 1)

    def forward(self, x):
        """x: (B, frames, in_ch) -> (B, frames, n_tags)."""
        h = x.transpose(1, 2)
        for conv in self.convs:
            h = self.drop(torch.relu(conv(h)))
        return self.head(h).transpose(1, 2)
