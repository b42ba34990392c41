"""Reading the farms' collar exports and splitting them by cow."""

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

STATES = ("normal", "heat", "lameness", "mastitis")
META = ("window_id", "cow", "start_h", "state")


@dataclass
class HerdTable:
    """One row per four-hour window: farm by farm, each cow's windows together and in time order."""
    window_ids: np.ndarray
    cows: np.ndarray
    farms: np.ndarray
    start_h: np.ndarray
    features: np.ndarray          # (n, n_features), sensor units as exported
    labels: np.ndarray            # (n,) int64 index into classes
    feature_names: tuple
    classes: tuple = STATES

    def __len__(self):
        return len(self.labels)

    def take(self, index):
        index = np.asarray(index)
        return HerdTable(self.window_ids[index], self.cows[index], self.farms[index], self.start_h[index],
                         self.features[index], self.labels[index], self.feature_names, self.classes)

    def counts(self):
        return np.bincount(self.labels, minlength=len(self.classes))


def read_export(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        if tuple(header[:len(META)]) != META:
            raise ValueError(f"{path}: unexpected header {header[:len(META)]}")
        rows = list(reader)
    names = tuple(header[len(META):])
    feats = np.array([[float(v) for v in r[len(META):]] for r in rows], dtype=np.float64)
    return names, rows, feats


def series_order(cows, starts):
    """Row order that puts each cow's windows together and in time order, the cows in the order the export
    first lists them (the herd software's own order)."""
    first = {}
    for i, cow in enumerate(cows):
        first.setdefault(cow, i)
    return sorted(range(len(cows)), key=lambda i: (first[cows[i]], starts[i]))


def load_exports(export_dir="data/exports"):
    """Every farm's export, in file-name order; within a farm, cow by cow (see series_order)."""
    paths = sorted(Path(export_dir).glob("*.csv"))
    if not paths:
        raise FileNotFoundError(f"no exports in {export_dir}")
    ids, cows, farms, starts, feats, labels, columns = [], [], [], [], [], [], None
    for path in paths:
        n, rows, f = read_export(path)
        if columns is not None and n != columns:
            raise ValueError(f"{path}: feature columns differ from the other exports")
        columns = n
        unknown = {r[3] for r in rows} - set(STATES)
        if unknown:
            raise ValueError(f"{path}: unknown states {sorted(unknown)}")
        order = series_order([r[1] for r in rows], [int(r[2]) for r in rows])
        rows = [rows[i] for i in order]
        f = f[order]
        ids += [r[0] for r in rows]
        cows += [r[1] for r in rows]
        farms += [path.stem] * len(rows)
        starts += [int(r[2]) for r in rows]
        labels += [STATES.index(r[3]) for r in rows]
        feats.append(f)
    return HerdTable(np.array(ids), np.array(cows), np.array(farms), np.array(starts, dtype=np.int64),
                     np.concatenate(feats), np.array(labels, dtype=np.int64), columns)


def split_by_cow(table, val_fraction, seed):
    """Hold out whole cows (a share of each farm's herd), so no cow is in both splits."""
    rng = np.random.default_rng(seed)
    is_val = np.zeros(len(table), dtype=bool)
    for farm in sorted(set(table.farms)):
        on_farm = table.farms == farm
        herd = sorted(set(table.cows[on_farm]))
        k = max(1, int(round(val_fraction * len(herd))))
        held = rng.choice(herd, size=k, replace=False)
        is_val |= on_farm & np.isin(table.cows, held)
    return table.take(np.flatnonzero(~is_val)), table.take(np.flatnonzero(is_val))
