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

    def __len__(self):
        return len(self.labels)

    def subset(self, index):
        return MapSet(self.maps[index], self.labels[index], self.lots[index])


def load_export(path):
    """(train, val, classes) from the export file."""
    with np.load(path) as z:
        classes = [str(c) for c in z["classes"]]
        train = MapSet(z["train_maps"], z["train_labels"], z["train_lots"])
        val = MapSet(z["val_maps"], z["val_labels"], z["val_lots"])
    return train, val, classes


def drop_duplicate_maps(ms):
    """Keep the first copy of maps exported more than once (same lot and same bins)."""
    seen, keep = set(), []
    for i in range(len(ms)):
        key = (str(ms.lots[i]), ms.maps[i].tobytes())
        if key not in seen:
            seen.add(key)
            keep.append(i)
    return ms.subset(np.array(keep, dtype=np.int64))


def class_counts(ms, n_classes):
    return np.bincount(ms.labels, minlength=n_classes)
