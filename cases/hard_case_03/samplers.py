"""Class-balanced batches: P classes x K images per batch, so every batch holds positives for the
neighbour objective (a uniform batch of 64 over 100 classes rarely has two images of a class)."""

import torch
from torch.utils.data import Sampler


class ClassBalancedBatches(Sampler):
    """Batches of positions into ``subset`` (a Subset of a GlyphSet): ``classes_per_batch`` classes,
    ``per_class`` images each (fewer when a class has fewer), an endless stream."""

    def __init__(self, subset, classes_per_batch=16, per_class=4, seed=0):
        labels = subset.dataset.labels[torch.as_tensor(subset.indices)]
        self.by_class = [torch.nonzero(labels == c).flatten() for c in range(int(labels.max()) + 1)]
        self.by_class = [pos for pos in self.by_class if len(pos) > 0]
        self.classes_per_batch, self.per_class = classes_per_batch, per_class
        self.gen = torch.Generator().manual_seed(seed)

    def __iter__(self):
        while True:
            chosen = torch.randperm(len(self.by_class), generator=self.gen)[: self.classes_per_batch]
            batch = []
            for c in chosen.tolist():
                pos = self.by_class[c]
                take = torch.randperm(len(pos), generator=self.gen)[: self.per_class]
                batch += pos[take].tolist()
            yield batch

    def __len__(self):
        return sum(len(p) for p in self.by_class) // (self.classes_per_batch * self.per_class)
