import torch.nn as nn


class CharMLP(nn.Module):
    """Bengio-style MLP language model over a fixed window of previous characters."""

    def __init__(self, vocab_size, block_size=3, n_embd=16, hidden=128, dropout=0.0):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, n_embd)
        self.fc1 = nn.Linear(block_size * n_embd, hidden)
        self.ln = nn.LayerNorm(hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, vocab_size)
        self.act = nn.Tanh()
        self.drop = nn.Dropout(dropout)

    def forward(self, idx):
        x = self.emb(idx)  # (B, block, n_embd)
        x = x.view(x.shape[0], -1)
        x = self.act(self.ln(self.fc1(x)))
        x = self.drop(self.act(self.fc2(x)))
        return self.out(x)
