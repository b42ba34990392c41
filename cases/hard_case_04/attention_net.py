"""Self-attention model: frame embedding, learned positions, a small Transformer encoder, pooling."""

import torch
import torch.nn as nn

from layers import ClassifierHead, FrameEmbed, InputNorm, make_pool, masked_mean


class AttentionNet(nn.Module):
    """Frame embedding + learned position embedding -> TransformerEncoder (batch-first, padded
    frames masked out of attention) -> pooling over valid frames -> head."""

    def __init__(self, n_channels, n_classes, hidden=32, dropout=0.1, layers=2, pool="mean", heads=4, max_frames=64):
        super().__init__()
        if hidden % heads:
            raise ValueError(f"model.hidden ({hidden}) must be divisible by the {heads} attention heads")
        self.max_frames = max_frames
        self.inputs = InputNorm(n_channels)
        self.embed = FrameEmbed(n_channels, hidden)
        self.position = nn.Embedding(max_frames, hidden)
        layer = nn.TransformerEncoderLayer(hidden, heads, dim_feedforward=2 * hidden, dropout=dropout,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.pool = make_pool(pool, hidden)
        self.head = ClassifierHead(hidden, n_classes, dropout)

    def forward(self, x, lengths):
        B, T, _ = x.shape
        if T > self.max_frames:
            raise ValueError(f"recordings of {T} frames exceed the position table ({self.max_frames})")
        frames = self.embed(self.inputs(x, lengths)).view(B, T, -1)
        h = frames + self.position(torch.arange(T))[None]
        padding = torch.arange(T)[None, :] >= lengths[:, None]
        h = self.encoder(h, src_key_padding_mask=padding)
        pooled = masked_mean(h, lengths) if self.pool is None else self.pool(h, lengths)
        return self.head(pooled)
