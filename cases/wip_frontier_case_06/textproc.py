"""Text to token ids: a word tokenizer, a frequency-cut vocabulary, fixed-length encoding."""

import re
from collections import Counter

PAD, UNK = "<pad>", "<unk>"
_TOKEN = re.compile(r"\[[a-z]+\]|[a-z0-9][a-z0-9'\-]*")


def tokenize(text, lowercase=True):
    return _TOKEN.findall(text.lower() if lowercase else text)


class Vocab:
    def __init__(self, tokens):
        self.itos = [PAD, UNK] + [t for t in tokens if t not in (PAD, UNK)]
        self.stoi = {t: i for i, t in enumerate(self.itos)}

    @property
    def pad_id(self):
        return 0

    @property
    def unk_id(self):
        return 1

    def __len__(self):
        return len(self.itos)

    @classmethod
    def build(cls, texts, min_count=2, lowercase=True):
        counts = Counter()
        for text in texts:
            counts.update(tokenize(text, lowercase))
        kept = sorted((t for t, c in counts.items() if c >= min_count), key=lambda t: (-counts[t], t))
        return cls(kept)

    def ids(self, tokens):
        return [self.stoi.get(t, self.unk_id) for t in tokens]

    def encode(self, text, max_len, lowercase=True):
        """Token ids of `text`, cut or padded to `max_len`, and the number of real tokens."""
        ids = self.ids(tokenize(text, lowercase))[:max_len]
        n = len(ids)
        return ids + [self.pad_id] * (max_len - n), n

    def decode(self, ids):
        return " ".join(self.itos[i] for i in ids if i != self.pad_id)

    def coverage(self, texts, lowercase=True):
        """Share of tokens in `texts` the vocabulary knows."""
        total = known = 0
        for text in texts:
            toks = tokenize(text, lowercase)
            total += len(toks)
            known += sum(t in self.stoi for t in toks)
        return known / max(total, 1)
