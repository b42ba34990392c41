"""Sanity checks on an export before training: errors stop the run, warnings are printed."""

import numpy as np

from wafers import FAIL, PASS, class_counts


class ExportError(ValueError):
    pass


def check_export(train, val, classes):
    """Raise on a malformed export; return a list of warnings."""
    warnings = []
    for name, ms in (("train", train), ("val", val)):
        if ms.bins.ndim != 2 or ms.bins.shape[1] != len(ms.layout):
            raise ExportError(f"{name}: {ms.bins.shape[1]} bins per wafer for {len(ms.layout)} dies")
        if ms.bins.max() > FAIL or ms.bins.min() < PASS:
            raise ExportError(f"{name}: unknown bin code")
        if ms.labels.min() < 0 or ms.labels.max() >= len(classes):
            raise ExportError(f"{name}: label out of range")
        if np.hypot(ms.layout.x_mm, ms.layout.y_mm).max() > ms.layout.wafer_mm / 2:
            raise ExportError(f"{name}: dies outside the wafer")
        counts = class_counts(ms, len(classes))
        if counts.min() == 0:
            missing = [classes[k] for k in np.flatnonzero(counts == 0)]
            raise ExportError(f"{name}: no maps of {missing}")
    counts = class_counts(train, len(classes))
    if counts.max() > 3 * counts.min():
        rare = classes[int(counts.argmin())]
        warnings.append(f"train: classes are unbalanced ({counts.max()} maps of the largest, "
                        f"{counts.min()} of {rare})")
    shares = (train.bins == FAIL).mean(axis=1)
    if np.mean(np.array(shares) > 0.9) > 0.05:
        warnings.append("train: more than 5% of the maps fail almost every die: tester down?")
    if train.bins.shape[1] != val.bins.shape[1]:
        raise ExportError("train and val wafers differ in die count")
    keys = {}
    dups = 0
    for i in range(len(train)):
        key = (str(train.lots[i]), int(train.wafers[i]), train.bins[i].tobytes())
        dups += key in keys
        keys[key] = i
    if dups:
        warnings.append(f"train: {dups} wafers exported twice (same lot, wafer and bins): re-tested wafers")
    return warnings
