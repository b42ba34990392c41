"""Nearest-class-mean classifier: one prototype per class, the normalized mean embedding of its
training images; p(y | x) = softmax(sim(x, prototypes) / tau)."""

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from memory import embed_loader


class PrototypeBank:
    def __init__(self, keys, labels, n_classes):
        sums = torch.zeros(n_classes, keys.shape[1]).index_add_(0, labels, keys)
        counts = torch.bincount(labels, minlength=n_classes).clamp_min(1)
        self.prototypes = F.normalize(sums / counts[:, None], dim=-1)
        self.present = torch.bincount(labels, minlength=n_classes) > 0

    def __len__(self):
        return int(self.present.sum())

    def log_probs(self, z, tau, query_ids=None):
        """Class log-probabilities; ``query_ids`` is accepted for the bank interface and unused
        (a query's own image is one of several in its prototype)."""
        sims = (z @ self.prototypes.T / tau).masked_fill(~self.present[None, :], float("-inf"))
        return sims.log_softmax(dim=-1)


def build_prototypes(encoder, norm, train_set, n_classes, batch_size=256):
    keys, labels, _ = embed_loader(encoder, norm, DataLoader(train_set, batch_size=batch_size))
    return PrototypeBank(keys, labels, n_classes)
