"""Synthetic 'sensor' dataset: 10 activity classes, 32 features per window."""

import torch


def make_dataset(n, n_features=32, n_classes=10, noise=4.0, spread=0.4, seed=0):
    g = torch.Generator().manual_seed(seed)
    # class centres are fixed across splits; only the samples change with the seed
    centres = torch.randn(n_classes, n_features, generator=torch.Generator().manual_seed(1234)) * spread
    y = torch.randint(0, n_classes, (n,), generator=g)
    x = centres[y] + noise * torch.randn(n, n_features, generator=g) / n_features ** 0.5
    return x, y


def batches(x, y, batch_size, seed):
    g = torch.Generator().manual_seed(seed)
    while True:
        perm = torch.randperm(len(x), generator=g)
        for i in range(0, len(x) - batch_size + 1, batch_size):
            idx = perm[i:i + batch_size]
            yield x[idx], y[idx]
