"""Memory bank of labelled embeddings and the soft nearest-neighbour vote over it.

p(y = k | x) is the share of softmax(sim(x, bank) / tau) that falls on bank rows of class k
(neighbourhood component analysis with a memory bank, as in Wu et al. 2018). A query that is
itself a bank row (a training image) is kept from voting for itself by its row id.
"""

import torch
import torch.nn.functional as F

from datasets import GlyphSet


class MemoryBank:
    def __init__(self, keys, labels, ids, n_classes):
        self.keys, self.labels, self.ids = keys, labels, ids
        self.onehot = F.one_hot(labels, n_classes).float()

    def __len__(self):
        return len(self.labels)

    def log_probs(self, z, tau, query_ids=None):
        sims = z @ self.keys.T / tau
        if query_ids is not None:  # a training row must not vote for itself
            sims = sims.masked_fill(query_ids[:, None] == self.ids[None, :], float("-inf"))
        probs = sims.softmax(dim=-1) @ self.onehot
        return probs.clamp_min(1e-12).log()


def base_set(ds):
    """The GlyphSet holding the tensors under any wrappers (augmentation views, subsets)."""
    while not isinstance(ds, GlyphSet):
        ds = ds.dataset
    return ds


@torch.no_grad()
def embed_rows(encoder, norm, ds, chunk=512):
    """Embeddings, labels and row ids of a dataset's images, straight from the tensors in chunks
    (no per-item __getitem__, so a refresh of the whole bank stays cheap)."""
    base = base_set(ds)
    was_training = encoder.training
    encoder.eval()
    keys = torch.cat([encoder(norm(base.images[i:i + chunk])) for i in range(0, len(base), chunk)])
    encoder.train(was_training)
    return keys, base.labels, torch.arange(len(base))


@torch.no_grad()
def embed_loader(encoder, norm, loader):
    """Embeddings, labels and row ids of everything a loader yields, in its order."""
    was_training = encoder.training
    encoder.eval()
    keys, labels, ids = [], [], []
    for x, y, rows in loader:
        keys.append(encoder(norm(x)))
        labels.append(y)
        ids.append(rows)
    encoder.train(was_training)
    return torch.cat(keys), torch.cat(labels), torch.cat(ids)


def build_bank(encoder, norm, train_set, n_classes):
    """The memory bank over the training images."""
    keys, labels, ids = embed_rows(encoder, norm, train_set)
    return MemoryBank(keys, labels, ids, n_classes)
