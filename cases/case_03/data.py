"""Synthetic glyph images: 100 classes, each a fixed random stroke pattern on a 12x12 grid.

Every sample is its class's glyph, shifted by up to one pixel, with random contrast and
pixel noise. The generator stands in for the scanned set until that is cleaned up.
"""

import torch
from torch.utils.data import Dataset


def _glyphs(n_classes, size, gen):
    base = torch.zeros(n_classes, size, size)
    for c in range(n_classes):
        for _ in range(4):  # four random strokes per glyph
            r, q = torch.randint(1, size - 1, (2,), generator=gen).tolist()
            length = int(torch.randint(3, size - 2, (1,), generator=gen))
            if torch.rand(1, generator=gen) < 0.5:
                base[c, r, q:q + length] = 1.0
            else:
                base[c, r:r + length, q] = 1.0
    return base


def make_glyphs(n_classes=100, per_class=10, size=12, noise=0.45, seed=0):
    glyphs = _glyphs(n_classes, size, torch.Generator().manual_seed(4321))  # same alphabet for every seed
    g = torch.Generator().manual_seed(seed)
    labels = torch.arange(n_classes).repeat_interleave(per_class)
    images = glyphs[labels]
    shifts = torch.randint(-1, 2, (len(labels), 2), generator=g)
    images = torch.stack([torch.roll(im, tuple(s.tolist()), dims=(0, 1)) for im, s in zip(images, shifts)])
    contrast = 0.6 + 0.8 * torch.rand(len(labels), 1, 1, generator=g)
    images = contrast * images + noise * torch.randn(images.shape, generator=g)
    return images.unsqueeze(1), labels


class GlyphSet(Dataset):
    """Images with labels; items also carry their row id so neighbours can skip themselves."""

    def __init__(self, images, labels):
        self.images, self.labels = images, labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i], self.labels[i], i
