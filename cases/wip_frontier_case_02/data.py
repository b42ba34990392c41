"""Reading the farms' collar exports and splitting them by cow."""

from dataclasses import dataclass
from pathlib import Path

import csv

import numpy as np
import torch

STATES = ("normal", "heat", "lame", "mastitis", "ketosis")
META = ("window_id", "collar", "start_h", "state")


@dataclass
class WindowTable:
    """One row per six-hour collar window, in the exports' order."""
    window_ids: np.ndarray
    collars: np.ndarray
    farms: np.ndarray
    start_h: np.ndarray
    features: torch.Tensor        # (n, n_features), the export's reading columns
    labels: np.ndarray            # (n,) int64 index into classes
    feature_names: tuple
    classes: tuple = STATES

    def __len__(self):
        return len(self.labels)

    def take(self, index):
        index = np.asarray(index)
        return WindowTable(self.window_ids[index], self.collars[index], self.farms[index],
                           self.start_h[index], self.features[torch.as_tensor(index)], self.labels[index],
                           self.feature_names, self.classes)

    def counts(self):
        return np.bincount(self.labels, minlength=len(self.classes))


def read_export(path):
    """One gateway export: its reading columns' names, its rows, and each row's readings."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        if tuple(header[:len(META)]) != META:
            raise ValueError(f"{path}: unexpected columns {header[:len(META)]}")
        rows = list(reader)
    return tuple(header[len(META):]), rows, [[float(v) for v in r[len(META):]] for r in rows]


def load_exports(export_dir="data/exports"):
    """Every farm's export, concatenated in file-name order (the farm is the file's stem)."""
    paths = sorted(Path(export_dir).glob("*.csv"))
    if not paths:
        raise FileNotFoundError(f"no exports in {export_dir}")
    ids, collars, farms, starts, feats, labels, names = [], [], [], [], [], [], None
    for path in paths:
        n, rows, f = read_export(path)
        if names is not None and n != names:
            raise ValueError(f"{path}: reading columns differ from the other exports")
        names = n
        unknown = {r[3] for r in rows} - set(STATES)
        if unknown:
            raise ValueError(f"{path}: unknown states {sorted(unknown)}")
        ids += [r[0] for r in rows]
        collars += [r[1] for r in rows]
        farms += [path.stem] * len(rows)
        starts += [int(r[2]) for r in rows]
        labels += [STATES.index(r[3]) for r in rows]
        feats += f
    return WindowTable(np.array(ids), np.array(collars), np.array(farms), np.array(starts, dtype=np.int64),
                       torch.tensor(feats, dtype=torch.float64), np.array(labels, dtype=np.int64), names)


def split_by_cow(table, val_fraction, seed):
    """Hold out whole cows (a share of each farm's), so no cow is in both splits."""
    rng = np.random.default_rng(seed)
    is_val = np.zeros(len(table), dtype=bool)
    for farm in sorted(set(table.farms)):
        here = table.farms == farm
        collars = sorted(set(table.collars[here]))
        k = max(1, int(round(val_fraction * len(collars))))
        held = rng.choice(collars, size=k, replace=False)
        is_val |= here & np.isin(table.collars, held)
    return table.take(np.flatnonzero(~is_val)), table.take(np.flatnonzero(is_val))
