"""The inspection export: wafer bin maps (0 = no die, 1 = pass, 2 = fail) with the defect class an
engineer assigned, split into the training lots and the validation lots."""

from dataclasses import dataclass

import numpy as np

NO_DIE, PASS, FAIL = 0, 1, 2


@dataclass
class MapSet:
    maps: np.ndarray      # (n, side, side) uint8 bin codes
    labels: np.ndarray    # (n,) int64 class index
    lots: np.ndarray      # (n,) lot id of each map
    wafers: np.ndarray = None  # (n,) wafer slot in its lot

    def __post_init__(self):
        if self.wafers is None:
            self.wafers = np.zeros(len(self.labels), np.int64)

    def __len__(self):
        return len(self.labels)

    def subset(self, index):
        return MapSet(self.maps[index], self.labels[index], self.lots[index], self.wafers[index])


def load_export(path):
    """(train, val, classes) from the export file."""
    with np.load(path) as z:
        classes = [str(c) for c in z["classes"]]
        train = MapSet(z["train_maps"], z["train_labels"], z["train_lots"], z["train_wafers"])
        val = MapSet(z["val_maps"], z["val_labels"], z["val_lots"], z["val_wafers"])
    return train, val, classes


def last_tests(ms):
    """A wafer re-tested at probe is exported again under its lot, after the first test: keep the
    last record of each, in export order."""
    last = {}
    for i in range(len(ms)):
        last[str(ms.lots[i])] = i
    return ms.subset(np.array(sorted(last.values()), dtype=np.int64))


def class_counts(ms, n_classes):
    return np.bincount(ms.labels, minlength=n_classes)
