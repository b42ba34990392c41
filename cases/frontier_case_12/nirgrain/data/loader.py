"""Batch iterator over in-memory feature tensors."""

import torch


class Loader:
    """Yields (features, labels, instrument ids). ``augment`` (a Stage, optional) is applied per batch
    with the loader's own generator, so augmentation never touches the global RNG."""

    def __init__(self, x, y, instrument, batch_size, shuffle=False, augment=None, seed=0, drop_last=False):
        if len(x) != len(y) or len(x) != len(instrument):
            raise ValueError(f"features ({len(x)}), labels ({len(y)}) and instrument ids ({len(instrument)}) differ in length")
        self.x, self.y, self.instrument = x, y, instrument
        self.batch_size, self.shuffle, self.augment, self.drop_last = batch_size, shuffle, augment, drop_last
        self.generator = torch.Generator().manual_seed(seed)

    def __len__(self):
        if self.drop_last:
            return len(self.x) // self.batch_size
        return (len(self.x) + self.batch_size - 1) // self.batch_size

    def __iter__(self):
        n = len(self.x)
        order = torch.randperm(n, generator=self.generator) if self.shuffle else torch.arange(n)
        stop = n - n % self.batch_size if self.drop_last else n
        for start in range(0, stop, self.batch_size):
            idx = order[start:start + self.batch_size]
            x = self.x[idx]
            if self.augment is not None:
                x = self.augment(x, self.generator)
            yield x, self.y[idx], self.instrument[idx]

    def describe(self):
        aug = "none" if self.augment is None else ", ".join(type(s).__name__ for s in getattr(self.augment, "stages", [self.augment]))
        return f"{len(self.x)} windows, {len(self)} batches of {self.batch_size}, shuffle={self.shuffle}, augment={aug}"
