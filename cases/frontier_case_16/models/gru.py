"""GRU baseline over the event sequence: the last hidden state of a packed (padding-free) run."""

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence


class EventGRU(nn.Module):
    def __init__(self, vocab_size, n_classes, d_model=48, dropout=0.1):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model, padding_idx=0)
        self.gru = nn.GRU(d_model, d_model, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(d_model, n_classes)

    def forward(self, tokens, lengths, times=None):
        packed = pack_padded_sequence(self.drop(self.tok(tokens)), lengths.cpu(), batch_first=True,
                                      enforce_sorted=False)
        _, hidden = self.gru(packed)
        return self.head(self.drop(hidden[-1]))
