"""Stages 3-4: a stable train/validation split of the words, context windows, batch streams."""

import zlib

import torch


def split_words(words, val_fraction):
    """Validation = words whose CRC32 falls in the first `val_fraction` of the range.

    Hashing the word (not its position) keeps a word on the same side when sources are added.
    """
    cut = int(val_fraction * 2**32)
    train, val = [], []
    for w in words:
        (val if zlib.crc32(w.encode()) < cut else train).append(w)
    return train, val


def windows(words, tokenizer, block_size):
    """(context, next char) pairs; contexts start padded with the boundary id 0."""
    xs, ys = [], []
    for w in words:
        context = [0] * block_size
        for ix in tokenizer.encode(w) + [0]:
            xs.append(context)
            ys.append(ix)
            context = context[1:] + [ix]
    return torch.tensor(xs, dtype=torch.long), torch.tensor(ys, dtype=torch.long)


class BatchStream:
    """Endless random minibatches (with replacement), reproducible from `seed`."""

    def __init__(self, x, y, batch_size, seed):
        if len(x) == 0:
            raise ValueError("no training windows")
        self.x, self.y, self.batch_size = x, y, batch_size
        self.generator = torch.Generator().manual_seed(seed)
        self.drawn = 0

    def __iter__(self):
        return self

    def __next__(self):
        idx = torch.randint(0, len(self.x), (self.batch_size,), generator=self.generator)
        self.drawn += 1
        return self.x[idx], self.y[idx]


def eval_batches(x, y, batch_size=4096):
    """Fixed-order chunks for evaluation."""
    for i in range(0, len(x), batch_size):
        yield x[i:i + batch_size], y[i:i + batch_size]


def build_datasets(cfg, tokenizer, seed):
    """The full pipeline from config to tensors: corpus -> split -> windows."""
    from corpus import build_corpus

    words = build_corpus(cfg.sources, cfg.n_words, seed, cfg.min_len, cfg.max_len)
    train_words, val_words = split_words(words, cfg.val_fraction)
    x_train, y_train = windows(train_words, tokenizer, cfg.block_size)
    x_val, y_val = windows(val_words, tokenizer, cfg.block_size)
    return {"train": (x_train, y_train), "val": (x_val, y_val),
            "n_words": (len(train_words), len(val_words))}
