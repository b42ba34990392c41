"""Reading the apiaries' window exports and splitting them by hive."""

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

STATES = ("normal", "pre_swarm", "robbing", "varroa_stress", "queenless")
META = ("window_id", "hive", "start_h", "state")


@dataclass
class WindowTable:
    """One row per six-hour window, in the exports' order."""
    window_ids: np.ndarray
    hives: np.ndarray
    apiaries: np.ndarray
    start_h: np.ndarray
    features: np.ndarray          # (n, n_features) float32, raw sensor units
    labels: np.ndarray            # (n,) int64 index into classes
    feature_names: tuple
    classes: tuple = STATES

    def __len__(self):
        return len(self.labels)

    def take(self, index):
        index = np.asarray(index)
        return WindowTable(self.window_ids[index], self.hives[index], self.apiaries[index],
                           self.start_h[index], self.features[index], self.labels[index],
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
    feats = np.array([[float(v) for v in r[len(META):]] for r in rows], dtype=np.float32)
    return names, rows, feats


def load_exports(export_dir="data/exports"):
    """Every apiary's export, concatenated in file-name order."""
    paths = sorted(Path(export_dir).glob("*.csv"))
    if not paths:
        raise FileNotFoundError(f"no exports in {export_dir}")
    ids, hives, apiaries, starts, feats, labels, names = [], [], [], [], [], [], None
    for path in paths:
        n, rows, f = read_export(path)
        if names is not None and n != names:
            raise ValueError(f"{path}: feature columns differ from the other exports")
        names = n
        unknown = {r[3] for r in rows} - set(STATES)
        if unknown:
            raise ValueError(f"{path}: unknown states {sorted(unknown)}")
        ids += [r[0] for r in rows]
        hives += [r[1] for r in rows]
        apiaries += [path.stem] * len(rows)
        starts += [int(r[2]) for r in rows]
        labels += [STATES.index(r[3]) for r in rows]
        feats.append(f)
    return WindowTable(np.array(ids), np.array(hives), np.array(apiaries), np.array(starts, dtype=np.int64),
                       np.vstack(feats), np.array(labels, dtype=np.int64), names)


def split_by_hive(table, val_fraction, seed):
    """Hold out whole hives (a share of each apiary's), so no hive is in both splits."""
    rng = np.random.default_rng(seed)
    val_hives = []
    for apiary in sorted(set(table.apiaries)):
        hives = sorted(set(table.hives[table.apiaries == apiary]))
        k = max(1, int(round(val_fraction * len(hives))))
        val_hives += list(rng.choice(hives, size=k, replace=False))
    is_val = np.isin(table.hives, val_hives)
    return table.take(np.flatnonzero(~is_val)), table.take(np.flatnonzero(is_val))
