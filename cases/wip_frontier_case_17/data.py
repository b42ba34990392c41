"""Reading the detector sites' pass exports and splitting them by wagon."""

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

CONDITIONS = ("sound", "flat_spot", "out_of_round", "shelled", "built_up_tread")
META = ("pass_id", "wagon", "pass_h", "condition", "label_source")
LABEL_CONFIDENCE = {"shop": 1.0, "wayside": 0.15}  # wayside calls: the detector crew's reading, not yet seen at the shop


@dataclass
class PassTable:
    """One row per wagon pass over a detector, in the exports' order."""
    pass_ids: np.ndarray
    wagons: np.ndarray
    sites: np.ndarray
    pass_h: np.ndarray
    sources: np.ndarray
    features: torch.Tensor        # (n, n_features): the site's readings, in the export's column order
    labels: np.ndarray            # (n,) int64 index into classes
    weights: np.ndarray           # (n,) float32 loss weight of each pass, from its label's source
    feature_names: tuple
    classes: tuple = CONDITIONS

    def __len__(self):
        return len(self.labels)

    def take(self, index):
        index = np.asarray(index)
        return PassTable(self.pass_ids[index], self.wagons[index], self.sites[index], self.pass_h[index],
                         self.sources[index], self.features[torch.as_tensor(index)], self.labels[index],
                         self.weights[index], self.feature_names, self.classes)

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
    """Every site's export, concatenated in file-name order."""
    paths = sorted(Path(export_dir).glob("*.csv"))
    if not paths:
        raise FileNotFoundError(f"no exports in {export_dir}")
    ids, wagons, sites, hours, sources, feats, labels, names = [], [], [], [], [], [], [], None
    for path in paths:
        n, rows, f = read_export(path)
        if names is not None and n != names:
            raise ValueError(f"{path}: feature columns differ from the other exports")
        names = n
        unknown = {r[3] for r in rows} - set(CONDITIONS)
        if unknown:
            raise ValueError(f"{path}: unknown conditions {sorted(unknown)}")
        bad = {r[4] for r in rows} - set(LABEL_CONFIDENCE)
        if bad:
            raise ValueError(f"{path}: unknown label sources {sorted(bad)}")
        ids += [r[0] for r in rows]
        wagons += [r[1] for r in rows]
        sites += [path.stem] * len(rows)
        hours += [int(r[2]) for r in rows]
        labels += [CONDITIONS.index(r[3]) for r in rows]
        sources += [r[4] for r in rows]
        feats += f
    return PassTable(np.array(ids), np.array(wagons), np.array(sites), np.array(hours, dtype=np.int64),
                     np.array(sources), torch.tensor(feats), np.array(labels, dtype=np.int64),
                     np.array([LABEL_CONFIDENCE[s] for s in sources], dtype=np.float32), names)


def split_by_wagon(table, val_fraction, seed):
    """Hold out whole wagons (a share of each site's), so no wagon is in both splits."""
    rng = np.random.default_rng(seed)
    val_wagons = []
    for site in sorted(set(table.sites)):
        wagons = sorted(set(table.wagons[table.sites == site]))
        k = max(1, int(round(val_fraction * len(wagons))))
        val_wagons += list(rng.choice(wagons, size=k, replace=False))
    is_val = np.isin(table.wagons, val_wagons)
    return table.take(np.flatnonzero(~is_val)), table.take(np.flatnonzero(is_val))
