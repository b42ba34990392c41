"""Recurrent baseline: a GRU language model over the token embeddings.

Padding must be on the right for the GRU (its state would otherwise run through the left
padding first); train() refuses the combination.
"""

import torch.nn as nn


class GRULM(nn.Module):
    needs_right_padding = True

    def __init__(self, vocab_size, d_model=64, n_layer=1, dropout=0.0):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, d_model)
        self.rnn = nn.GRU(d_model, d_model, num_layers=n_layer, batch_first=True,
                          dropout=dropout if n_layer > 1 else 0.0)
        self.ln = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, input_ids, attention_mask=None):
        out, _ = self.rnn(self.emb(input_ids))
        return self.lm_head(self.ln(out))
