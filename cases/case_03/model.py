"""Small conv encoder and a soft nearest-neighbour classifier over a memory bank.

p(y = k | x) is the share of softmax(sim(x, bank) / tau) that falls on bank rows of class k
(neighbourhood component analysis with a memory bank, as in Wu et al. 2018).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, dim=64, width=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.ReLU(),
            nn.Conv2d(width, width, 3, stride=2, padding=1), nn.ReLU(),
            nn.Flatten(), nn.Linear(width * 6 * 6, dim),
        )

    def forward(self, x):
        return F.normalize(self.net(x), dim=-1)


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
