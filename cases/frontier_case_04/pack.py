"""Packing: training examples concatenated into fixed-length rows, so no step is spent on padding."""

import numpy as np
import torch

from vocab import PAD


def pack(examples, row_len, seed):
    """Shuffle the examples and fill rows of row_len tokens greedily; an example that does not fit in
    what is left of a row starts the next one. Returns (tokens, targets), int64 [n_rows, row_len], and the
    per-token syllable features, float [n_rows, row_len, n_feats]."""
    order = np.random.default_rng(seed).permutation(len(examples))
    rows_x, rows_y, rows_t = [], [], []
    cur_x, cur_y, cur_t = [], [], []
    for i in order:
        inp, tgt = examples[int(i)].pair()
        tm = examples[int(i)].feats
        if len(inp) > row_len:
            inp, tgt, tm = inp[:row_len], tgt[:row_len], tm[:row_len]
        if len(cur_x) + len(inp) > row_len:
            rows_x.append(cur_x)
            rows_y.append(cur_y)
            rows_t.append(cur_t)
            cur_x, cur_y, cur_t = [], [], []
        cur_x.extend(inp.tolist())
        cur_y.extend(tgt.tolist())
        cur_t.extend(tm)
    if cur_x:
        rows_x.append(cur_x)
        rows_y.append(cur_y)
        rows_t.append(cur_t)
    x = np.full((len(rows_x), row_len), PAD, dtype=np.int64)
    y = np.full((len(rows_x), row_len), -100, dtype=np.int64)
    tms = np.zeros((len(rows_x), row_len, examples[0].feats.shape[1]), dtype=np.float32)
    for r, (a, b, c) in enumerate(zip(rows_x, rows_y, rows_t)):
        x[r, :len(a)] = a
        y[r, :len(b)] = b
        tms[r, :len(c)] = c
    return torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(tms)


def fill_rate(targets):
    return float((targets != -100).float().mean())
