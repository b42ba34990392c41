"""Reading the greenhouses' window exports (one CSV per house) and holding one house out."""

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

STATES = ("normal", "heating_fault", "vent_stuck", "screen_fault", "valve_hunting")
META = ("window_id", "zone", "start_h", "state")


@dataclass
class WindowTable:
    """One row per six-hour window, in the exports' order."""
    window_ids: np.ndarray
    zones: np.ndarray
    houses: np.ndarray
    start_h: np.ndarray
    features: torch.Tensor        # (n, n_features), raw sensor units as exported
    labels: np.ndarray            # (n,) int64 index into classes
    feature_names: tuple
    classes: tuple = STATES

    def __len__(self):
        return len(self.labels)

    def take(self, index):
        index = np.asarray(index)
        return WindowTable(self.window_ids[index], self.zones[index], self.houses[index],
                           self.start_h[index], self.features[torch.as_tensor(index)], self.labels[index],
                           self.feature_names, self.classes)

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
    feats = [[float(v) for v in r[len(META):]] for r in rows]
    return names, rows, feats


def load_exports(export_dir="data/exports"):
    """Every house's export, concatenated in file-name order (the house is the file's stem)."""
    paths = sorted(Path(export_dir).glob("*.csv"))
    if not paths:
        raise FileNotFoundError(f"no exports in {export_dir}")
    ids, zones, houses, starts, feats, labels, names = [], [], [], [], [], [], None
    for path in paths:
        n, rows, f = read_export(path)
        if names is not None and n != names:
            raise ValueError(f"{path}: feature columns differ from the other exports")
        names = n
        unknown = {r[3] for r in rows} - set(STATES)
        if unknown:
            raise ValueError(f"{path}: unknown states {sorted(unknown)}")
        ids += [r[0] for r in rows]
        zones += [r[1] for r in rows]
        houses += [path.stem] * len(rows)
        starts += [int(r[2]) for r in rows]
        labels += [STATES.index(r[3]) for r in rows]
        feats += f
    return WindowTable(np.array(ids), np.array(zones), np.array(houses), np.array(starts, dtype=np.int64),
                       torch.tensor(feats), np.array(labels, dtype=np.int64), names)


def split_by_house(table, val_house):
    """Hold out one whole greenhouse (its own controller, crop and microclimate) for validation."""
    if val_house not in set(table.houses):
        raise KeyError(f"no export for house {val_house!r}")
    is_val = table.houses == val_house
    return table.take(np.flatnonzero(~is_val)), table.take(np.flatnonzero(is_val))
