import torch.nn as nn


class CharGRU(nn.Module):
    """A recurrent baseline: embedding, GRU, linear head."""

    def __init__(self, vocab_size, d_model=48, n_layer=1, block_size=128, dropout=0.0):
        super().__init__()
        self.block_size = block_size
        self.emb = nn.Embedding(vocab_size, d_model)
        self.rnn = nn.GRU(d_model, d_model, num_layers=n_layer, batch_first=True,
                          dropout=dropout if n_layer > 1 else 0.0)
        self.head = nn.Linear(d_model, vocab_size)

    @classmethod
    def from_config(cls, cfg, vocab_size):
        m = cfg.model
        return cls(vocab_size, m.d_model, m.n_layer, cfg.data.max_len, m.dropout)

    def forward(self, ids):
        out, _ = self.rnn(self.emb(ids))
        return self.head(out)
