"""How cases/frontier_case_13/data/wafer_maps.npz was generated (not shipped to the agent).

Synthetic die-level bin records of one product: a 150 mm wafer stepped at a 4 mm die pitch (36 x 36
die positions, the dies whose centre lies within 72 mm of the wafer centre are probed), 1 = pass,
2 = fail, stored per wafer in the prober's row-major order with the die centres in mm.
Seven classes: none, center, edge-ring, edge-loc, scratch, reticle, scatter.
`scatter` is isolated failing dies spread over the whole wafer at 5-11% (the other classes' background
is 1-5%), so it is the one class told apart by how many isolated fails a wafer has. The model's 24 x 24
grid has 6.25 mm cells: 36 die columns land in 24 cell columns, 12 cells of each row/column hold two
dies. Writing the cell by plain assignment keeps the last die (layer B): an isolated fail survives only
if it is the last die of its cell, about 4 in 9 of them, while dense classes lose nothing.
A few wafers are exported twice (re-tested wafers: same lot, wafer and bins): the duplicates the checks
warn about. Scatter lots hold 2 reviewed wafers each, half the edge-ring lots 2.

Run: python make_data.py OUT.npz   (seed fixed; regenerates the shipped file bit for bit)
"""

import sys

import numpy as np

SIZE = 36          # die positions across (4 mm pitch on a 150 mm wafer)
PITCH_MM = 4.0
WAFER_MM = 150.0
S = SIZE / 24      # the class geometry below was written for 24 dies across
CLASSES = ["none", "center", "edge-ring", "edge-loc", "scratch", "reticle", "scatter"]
N_TRAIN_PER_CLASS = 48
N_VAL_PER_CLASS = 60
SEED = 20261205
TAKEN = set()


def wafer_mask():
    yy, xx = np.mgrid[:SIZE, :SIZE]
    c = (SIZE - 1) / 2
    return np.hypot((yy - c) * PITCH_MM, (xx - c) * PITCH_MM) <= WAFER_MM / 2 - 3.0


MASK = wafer_mask()


def one_map(cls, rng):
    """Bin codes (SIZE, SIZE) of one wafer on the die grid (0 outside the wafer)."""
    iy, ix = np.mgrid[:SIZE, :SIZE]
    yy, xx = (iy + 0.5) / S - 0.5, (ix + 0.5) / S - 0.5   # in units of the 24-die geometry
    c = 11.5
    r = np.hypot(yy - c, xx - c)
    ang = np.arctan2(yy - c, xx - c)
    p = np.full((SIZE, SIZE), rng.uniform(0.01, 0.05))
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
        p[(dist < 1.0) & (along > lo) & (along < lo + rng.uniform(8, 14))] = rng.uniform(0.75, 0.95)
    elif cls == "reticle":
        h, w = rng.uniform(8, 15, 2)
        y0, x0 = rng.uniform(2, 22 - h), rng.uniform(2, 22 - w)
        block = (yy >= y0) & (yy < y0 + h) & (xx >= x0) & (xx < x0 + w)
        lines = (ix if rng.random() < 0.5 else iy) // 2 % 2 == rng.integers(2)
        p[block & lines] = rng.uniform(0.6, 0.85)
    elif cls == "scatter":
        p[:] = rng.uniform(0.05, 0.11)
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
    iy, ix = np.nonzero(MASK)                                # row-major: the prober's order
    die_x = ((ix - (SIZE - 1) / 2) * PITCH_MM).astype(np.float32)
    die_y = ((iy - (SIZE - 1) / 2) * PITCH_MM).astype(np.float32)
    np.savez_compressed(out, train_bins=xtr[:, iy, ix], train_labels=ytr, val_bins=xva[:, iy, ix],
                        val_labels=yva, die_x=die_x, die_y=die_y, wafer_mm=np.float32(WAFER_MM),
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
