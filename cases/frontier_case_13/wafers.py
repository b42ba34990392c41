"""The inspection export: the die records of every probed wafer (bin 1 = pass, 2 = fail, in the
prober's order, with each die's centre in mm from the wafer centre) and the defect class an engineer
assigned, split into the training lots and the validation lots."""

from dataclasses import dataclass

import numpy as np

NO_DIE, PASS, FAIL = 0, 1, 2


@dataclass
class DieLayout:
    x_mm: np.ndarray      # (n_dies,) die centre, mm from the wafer centre
    y_mm: np.ndarray      # (n_dies,)
    wafer_mm: float       # wafer diameter

    def __len__(self):
        return len(self.x_mm)


@dataclass
class MapSet:
    bins: np.ndarray      # (n, n_dies) uint8 bin code of every die of every wafer
    labels: np.ndarray    # (n,) int64 class index
    lots: np.ndarray      # (n,) lot id of each wafer
    wafers: np.ndarray = None  # (n,) wafer slot in its lot
    layout: DieLayout = None

    def __post_init__(self):
        if self.wafers is None:
            self.wafers = np.zeros(len(self.labels), np.int64)

    def __len__(self):
        return len(self.labels)

    def subset(self, index):
        return MapSet(self.bins[index], self.labels[index], self.lots[index], self.wafers[index], self.layout)


def load_export(path):
    """(train, val, classes) from the export file."""
    with np.load(path) as z:
        classes = [str(c) for c in z["classes"]]
        layout = DieLayout(z["die_x"], z["die_y"], float(z["wafer_mm"]))
        train = MapSet(z["train_bins"], z["train_labels"], z["train_lots"], z["train_wafers"], layout)
        val = MapSet(z["val_bins"], z["val_labels"], z["val_lots"], z["val_wafers"], layout)
    return train, val, classes


def last_tests(ms):
    """A wafer re-tested at probe is exported again, after the first test: keep the last record of
    each (lot, wafer), in export order."""
    last = {}
    for i in range(len(ms)):
        last[(str(ms.lots[i]), int(ms.wafers[i]))] = i
    return ms.subset(np.array(sorted(last.values()), dtype=np.int64))


def class_counts(ms, n_classes):
    return np.bincount(ms.labels, minlength=n_classes)
