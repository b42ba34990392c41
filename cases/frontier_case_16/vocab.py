"""Event vocabulary: token strings to ids. Id 0 pads, id 1 stands for an event the vocabulary has not seen."""

from collections import Counter

PAD, UNK = "<pad>", "<unk>"


class Vocab:
    def __init__(self, tokens):
        self.itos = [PAD, UNK] + list(tokens)
        self.stoi = {t: i for i, t in enumerate(self.itos)}

    @classmethod
    def build(cls, sequences, min_count=1):
        counts = Counter(t for seq in sequences for t in seq)
        kept = sorted(t for t, c in counts.items() if c >= min_count)
        return cls(kept)

    def __len__(self):
        return len(self.itos)

    @property
    def pad_id(self):
        return 0

    def encode(self, tokens):
        return [self.stoi.get(t, 1) for t in tokens]

    def decode(self, ids):
        return [self.itos[i] for i in ids if i != 0]
