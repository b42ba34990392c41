"""Token ids: syllables, then one token per bird, then the two song contexts."""

PAD = 0
CONTEXTS = ("directed", "undirected")


class Vocab:
    def __init__(self, syllables, birds):
        self.syllables = tuple(sorted(syllables))
        self.birds = tuple(sorted(birds))
        self.stoi = {s: i + 1 for i, s in enumerate(self.syllables)}
        base = 1 + len(self.syllables)
        self.bird_id = {b: base + i for i, b in enumerate(self.birds)}
        base += len(self.birds)
        self.context_id = {c: base + i for i, c in enumerate(CONTEXTS)}
        self.size = base + len(CONTEXTS)
        self.n_syllables = len(self.syllables)

    @classmethod
    def from_bouts(cls, bouts):
        return cls({s for b in bouts for s in b.syllables}, {b.bird for b in bouts})

    def is_syllable(self, tok):
        return 1 <= tok <= self.n_syllables

    def encode(self, bird, context, syllables):
        """[bird, context, s1, ..., sn]: the two prefix tokens condition the song."""
        return [self.bird_id[bird], self.context_id[context]] + [self.stoi[s] for s in syllables]

    def decode(self, ids):
        inv = {v: k for k, v in self.stoi.items()}
        inv.update({v: f"<{k}>" for k, v in self.bird_id.items()})
        inv.update({v: f"<{k}>" for k, v in self.context_id.items()})
        return " ".join(inv.get(int(i), "_") for i in ids)
