"""Batches for next-token training: random draws of examples, right-padded."""

import torch

from chatlm.templates import IGNORE


def collate(examples, pad_id):
    """Inputs are ids[:-1], targets labels[1:]; padding is never trained on."""
    width = max(len(ids) for ids, _ in examples)
    x = torch.full((len(examples), width - 1), pad_id, dtype=torch.long)
    y = torch.full((len(examples), width - 1), IGNORE, dtype=torch.long)
    for row, (ids, labels) in enumerate(examples):
        n = len(ids) - 1
        x[row, :n] = torch.tensor(ids[:-1])
        y[row, :n] = torch.tensor(labels[1:])
    return x, y


class RandomBatches:
    """Endless batches of ``batch_size`` examples drawn with replacement from a seeded generator."""

    def __init__(self, examples, batch_size, pad_id, seed):
        if not examples:
            raise ValueError("no training examples")
        self.examples, self.batch_size, self.pad_id = examples, batch_size, pad_id
        self.generator = torch.Generator().manual_seed(seed)

    def next(self):
        idx = torch.randint(0, len(self.examples), (self.batch_size,), generator=self.generator).tolist()
        return collate([self.examples[i] for i in idx], self.pad_id)


def truncated(examples, max_len):
    """How many examples were cut at max_len (their last label is not the end of the reply)."""
    return sum(len(ids) >= max_len for ids, _ in examples)
