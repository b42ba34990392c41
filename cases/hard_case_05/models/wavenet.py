import torch.nn as nn


class FlattenConsecutive(nn.Module):
    """(B, T, C) -> (B, T // n, C * n): merge n neighbouring positions, as in makemore part 5."""

    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        b, t, c = x.shape
        x = x.reshape(b, t // self.n, c * self.n)
        return x.squeeze(1) if x.shape[1] == 1 else x


class WaveNet(nn.Module):
    """Hierarchical MLP: pairs of positions are fused level by level (block_size a power of 2)."""

    def __init__(self, vocab_size, block_size=8, n_embd=16, hidden=96, dropout=0.0):
        super().__init__()
        if block_size & (block_size - 1):
            raise ValueError("WaveNet needs a power-of-two block_size")
        self.emb = nn.Embedding(vocab_size, n_embd)
        layers, width, t = [], n_embd, block_size
        while t > 1:
            layers += [FlattenConsecutive(2), nn.Linear(width * 2, hidden, bias=False), nn.LayerNorm(hidden), nn.Tanh()]
            width, t = hidden, t // 2
        self.body = nn.Sequential(*layers)
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(hidden, vocab_size)

    def forward(self, idx):
        return self.out(self.drop(self.body(self.emb(idx))))
