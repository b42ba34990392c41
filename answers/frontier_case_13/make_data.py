"""How cases/frontier_case_13/data/wafer_maps.npz was generated (not shipped to the agent).

Synthetic 24 x 24 wafer bin maps of one product: 0 = die outside the wafer, 1 = pass, 2 = fail.
Six classes: none, center, edge-ring, edge-loc, scratch, reticle, scatter (seven names; see CLASSES).
`reticle` is a block of every-other-line failures (the probe card / reticle stepping at the die pitch,
rows or columns); `scatter` is a block of the same size and the same mean failure density with the
failures placed at random. A 2 x 2 area average of the two is the same field of about 0.3 with
binomial noise: any resampling to a coarser grid erases what tells them apart (layer B).
A few maps are exported twice (re-tested lots): the duplicates the checks warn about (harmless).

Run: python make_data.py OUT.npz   (seed fixed; regenerates the shipped file bit for bit)
"""

import sys

import numpy as np

SIZE = 24
CLASSES = ["none", "center", "edge-ring", "edge-loc", "scratch", "reticle", "scatter"]
N_TRAIN_PER_CLASS = 48
N_VAL_PER_CLASS = 100
SEED = 20261205


def wafer_mask():
    yy, xx = np.mgrid[:SIZE, :SIZE]
    c = (SIZE - 1) / 2
    return ((yy - c) ** 2 + (xx - c) ** 2) <= (SIZE / 2 - 0.3) ** 2


MASK = wafer_mask()


def one_map(cls, rng):
    yy, xx = np.mgrid[:SIZE, :SIZE].astype(float)
    c = (SIZE - 1) / 2
    r = np.hypot(yy - c, xx - c)
    ang = np.arctan2(yy - c, xx - c)
    p = np.full((SIZE, SIZE), rng.uniform(0.02, 0.07))
    if cls == "center":
        cy, cx = c + rng.normal(0, 1.0, 2)
        rad = rng.uniform(3.0, 5.5)
        p[np.hypot(yy - cy, xx - cx) < rad] = rng.uniform(0.55, 0.85)
    elif cls == "edge-ring":
        p[r > rng.uniform(8.5, 9.8)] = rng.uniform(0.5, 0.8)
    elif cls == "edge-loc":
        a0 = rng.uniform(-np.pi, np.pi)
        d = np.angle(np.exp(1j * (ang - a0)))
        p[(r > rng.uniform(7.5, 9.0)) & (np.abs(d) < rng.uniform(0.4, 0.8))] = rng.uniform(0.6, 0.9)
    elif cls == "scratch":
        a0 = rng.uniform(0, np.pi)
        off = rng.uniform(-5, 5)
        dist = np.abs((xx - c) * np.sin(a0) - (yy - c) * np.cos(a0) - off)
        along = (xx - c) * np.cos(a0) + (yy - c) * np.sin(a0)
        lo = rng.uniform(-10, -2)
        p[(dist < 0.6) & (along > lo) & (along < lo + rng.uniform(8, 14))] = rng.uniform(0.75, 0.95)
    elif cls in ("reticle", "scatter"):
        h, w = rng.integers(8, 15, 2)
        y0 = rng.integers(2, SIZE - 2 - h + 1)
        x0 = rng.integers(2, SIZE - 2 - w + 1)
        block = np.zeros((SIZE, SIZE), bool)
        block[y0:y0 + h, x0:x0 + w] = True
        q = rng.uniform(0.5, 0.75)
        if cls == "reticle":
            lines = (xx if rng.random() < 0.5 else yy).astype(int) % 2 == rng.integers(2)
            p[block & lines] = q
        else:
            p[block] = q / 2
    fail = rng.random((SIZE, SIZE)) < p
    out = np.where(fail, 2, 1).astype(np.uint8)
    out[~MASK] = 0
    return out


def make(n_per_class, rng):
    maps, labels = [], []
    for k, cls in enumerate(CLASSES):
        for _ in range(n_per_class):
            maps.append(one_map(cls, rng))
            labels.append(k)
    order = rng.permutation(len(maps))
    return np.stack(maps)[order], np.array(labels, np.int64)[order]


def main(out):
    rng = np.random.default_rng(SEED)
    xtr, ytr = make(N_TRAIN_PER_CLASS, rng)
    xva, yva = make(N_VAL_PER_CLASS, rng)
    dup = rng.choice(len(xtr), 9, replace=False)  # re-tested lots, exported twice
    xtr = np.concatenate([xtr, xtr[dup]])
    ytr = np.concatenate([ytr, ytr[dup]])
    lots = np.array([f"L{rng.integers(10000, 99999)}" for _ in range(len(xtr) + len(xva))])
    lots[len(xtr) - 9:len(xtr)] = lots[dup]
    np.savez_compressed(out, train_maps=xtr, train_labels=ytr, val_maps=xva, val_labels=yva,
                        train_lots=lots[:len(xtr)], val_lots=lots[len(xtr):], classes=np.array(CLASSES))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "wafer_maps.npz")
