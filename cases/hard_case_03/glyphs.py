"""Synthetic glyph images: each class is a fixed random stroke pattern on a 12x12 grid.

Every sample is its class's glyph, shifted by up to one pixel, with random contrast and pixel
noise. The generator stands in for the scanned set until that is cleaned up; the alphabet (the
stroke patterns) is the same for every seed, only the samples change.
"""

import torch

SIZE = 12
ALPHABET_SEED = 4321


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


def make_glyphs(n_classes=100, per_class=10, size=SIZE, noise=0.45, seed=0):
    """(images (N, 1, size, size), labels (N,)), class-major: rows c*per_class ... are class c."""
    glyphs = _glyphs(n_classes, size, torch.Generator().manual_seed(ALPHABET_SEED))
    g = torch.Generator().manual_seed(seed)
    labels = torch.arange(n_classes).repeat_interleave(per_class)
    images = glyphs[labels]
    shifts = torch.randint(-1, 2, (len(labels), 2), generator=g)
    images = torch.stack([torch.roll(im, tuple(s.tolist()), dims=(0, 1)) for im, s in zip(images, shifts)])
    contrast = 0.6 + 0.8 * torch.rand(len(labels), 1, 1, generator=g)
    images = contrast * images + noise * torch.randn(images.shape, generator=g)
    return images.unsqueeze(1), labels


def closest_pairs(n_classes=100, size=SIZE, n=5):
    """The ``n`` most similar pairs of class glyphs (cosine of the clean stroke patterns): how easy
    the alphabet is, before shifts and noise."""
    flat = _glyphs(n_classes, size, torch.Generator().manual_seed(ALPHABET_SEED)).flatten(1)
    unit = flat / flat.norm(dim=1, keepdim=True).clamp_min(1e-12)
    sims = (unit @ unit.T).triu(diagonal=1)
    values, flat_idx = sims.flatten().topk(n)
    return [(int(i) // n_classes, int(i) % n_classes, float(v)) for v, i in zip(values, flat_idx)]


def render(image, threshold=0.5):
    """A glyph as text, for eyeballing samples in a terminal."""
    rows = []
    for row in image.squeeze(0):
        rows.append("".join("#" if v > threshold else "." for v in row.tolist()))
    return "\n".join(rows)
