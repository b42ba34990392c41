"""Datasets over the glyph tensors. Items are (image, label, row id): the row id is the image's
position in the full GlyphSet, so a neighbour lookup can recognise (and skip) the query itself."""

import torch
from torch.utils.data import Dataset


class GlyphSet(Dataset):
    def __init__(self, images, labels):
        if len(images) != len(labels):
            raise ValueError(f"{len(images)} images but {len(labels)} labels")
        self.images, self.labels = images, labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i], self.labels[i], i


class ShiftAugmented(Dataset):
    """Wraps a dataset and shifts each training image by up to ``max_shift`` pixels (fresh draw
    every time an item is read); labels and row ids pass through unchanged."""

    def __init__(self, dataset, max_shift=1, seed=0):
        self.dataset, self.max_shift = dataset, max_shift
        self.gen = torch.Generator().manual_seed(seed)

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, i):
        image, label, row = self.dataset[i]
        dy, dx = torch.randint(-self.max_shift, self.max_shift + 1, (2,), generator=self.gen).tolist()
        return torch.roll(image, (dy, dx), dims=(-2, -1)), label, row


def stack_items(ds):
    """Every item of ``ds`` as tensors (images, labels, row ids), in order."""
    images, labels, rows = zip(*(ds[i] for i in range(len(ds))))
    return torch.stack(images), torch.as_tensor(labels), torch.as_tensor(rows)
