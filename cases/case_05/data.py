"""A made-up 'names' corpus (syllable chains) and makemore-style context windows."""

import random

import torch

SYLLABLES = ["ka", "ri", "to", "mi", "sa", "lo", "ne", "vu", "da", "el", "an", "or",
             "is", "ju", "be", "qua", "th", "ny", "ce", "pho", "gri", "st", "ul", "ez"]
END = "."


def make_words(n, seed=0):
    rng = random.Random(seed)
    # each syllable prefers a few successors, so there is structure to learn
    table = random.Random(1234)
    follow = [[table.random() ** 6 for _ in SYLLABLES] for _ in SYLLABLES]
    words = []
    for _ in range(n):
        k = rng.randrange(len(SYLLABLES))
        parts = [SYLLABLES[k]]
        for _ in range(rng.randint(1, 3)):
            k = rng.choices(range(len(SYLLABLES)), weights=follow[k])[0]
            parts.append(SYLLABLES[k])
        words.append("".join(parts))
    return words


def build_vocab(words):
    chars = sorted(set("".join(words)))
    stoi = {END: 0, **{c: i + 1 for i, c in enumerate(chars)}}
    return stoi


def windows(words, stoi, block_size=3):
    xs, ys = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + END:
            ix = stoi[ch]
            xs.append(context)
            ys.append(ix)
            context = context[1:] + [ix]
    return torch.tensor(xs), torch.tensor(ys)


def batches(x, y, batch_size, seed):
    g = torch.Generator().manual_seed(seed)
    while True:
        idx = torch.randint(0, len(x), (batch_size,), generator=g)
        yield x[idx], y[idx]
