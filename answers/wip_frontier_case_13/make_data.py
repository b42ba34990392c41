"""How cases/frontier_case_13/data/wafer_maps.npz was generated (not shipped to the agent).

Synthetic 24 x 24 wafer bin maps of one product: 0 = die outside the wafer, 1 = pass, 2 = fail.
Seven classes: none, center, edge-ring, edge-loc, scratch, reticle, scatter.
`reticle` is a block of every-other-line failures (the probe card / reticle stepping at the die pitch,
rows or columns); `scatter` is a block of the same size and the same mean failure density with the
failures placed at random. A 2 x 2 area average of the two is the same field of about 0.3 with
binomial noise: any resampling to a coarser grid erases what tells them apart (layer B).
A few maps are exported twice (re-tested wafers: same lot, wafer and bins): the duplicates the checks
warn about. Scatter lots hold 2 reviewed wafers each, half the edge-ring lots 2: a re-test filter keyed
on the lot alone keeps one wafer of each (layer B).

Run: python make_data.py OUT.npz   (seed fixed; regenerates the shipped file bit for bit)
"""

import sys

import numpy as np

SIZE = 24
CLASSES = ["none", "center", "edge-ring", "edge-loc", "scratch", "reticle", "scatter"]
N_TRAIN_PER_CLASS = 48
N_VAL_PER_CLASS = 100
SEED = 20261205
TAKEN = set()


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
    dup = rng.choice(len(xtr), 9, replace=False)  # re-tested wafers, exported twice
    xtr = np.concatenate([xtr, xtr[dup]])
    ytr = np.concatenate([ytr, ytr[dup]])
    lot_rng = np.random.default_rng(SEED + 1)
    tr_lots, tr_wafers = lots_for(ytr[:len(ytr) - 9], lot_rng)
    tr_lots = np.concatenate([tr_lots, tr_lots[dup]])
    tr_wafers = np.concatenate([tr_wafers, tr_wafers[dup]])
    TAKEN.update(tr_lots)
    va_lots, va_wafers = lots_for(yva, lot_rng)
    np.savez_compressed(out, train_maps=xtr, train_labels=ytr, val_maps=xva, val_labels=yva,
                        train_lots=tr_lots, val_lots=va_lots, train_wafers=tr_wafers,
                        val_wafers=va_wafers, classes=np.array(CLASSES))


def lots_for(labels, rng):
    """Lot and wafer (slot) of every map. Most lots send one wafer to review; a scatter excursion
    (particles in a chamber) hits every wafer that went through it, so its lots send 2 wafers, and
    edge-ring lots (a chuck problem) 2 for half of them (layer B keys on the lot alone)."""
    lots = np.empty(len(labels), dtype=object)
    wafers = np.zeros(len(labels), np.int64)
    group = {CLASSES.index("scatter"): 2, CLASSES.index("edge-ring"): 2}
    pending, taken = {}, set(TAKEN)
    for i, y in enumerate(labels):
        size = group.get(int(y), 1)
        if int(y) == CLASSES.index("edge-ring") and rng.random() < 0.5 and int(y) not in pending:
            size = 1
        open_ = pending.get(int(y))
        if size > 1 and open_ is not None:
            lot, used = open_
            lots[i], wafers[i] = lot, used[-1] + int(rng.integers(1, 4))
            used.append(wafers[i])
            if len(used) == size:
                del pending[int(y)]
            continue
        lot = f"L{rng.integers(10000, 99999)}"
        while lot in taken:
            lot = f"L{rng.integers(10000, 99999)}"
        taken.add(lot)
        lots[i], wafers[i] = lot, int(rng.integers(1, 8))
        if size > 1:
            pending[int(y)] = (lot, [wafers[i]])
    return lots.astype(str), wafers

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "wafer_maps.npz")
