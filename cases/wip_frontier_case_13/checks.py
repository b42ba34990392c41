"""Sanity checks on an export before training: errors stop the run, warnings are printed."""

import numpy as np

from wafers import FAIL, NO_DIE, class_counts


class ExportError(ValueError):
    pass


def check_export(train, val, classes):
    """Raise on a malformed export; return a list of warnings."""
    warnings = []
    for name, ms in (("train", train), ("val", val)):
        if ms.maps.ndim != 3 or ms.maps.shape[1] != ms.maps.shape[2]:
            raise ExportError(f"{name}: maps must be square, got {ms.maps.shape}")
        if ms.maps.max() > FAIL:
            raise ExportError(f"{name}: unknown bin code {int(ms.maps.max())}")
        if ms.labels.min() < 0 or ms.labels.max() >= len(classes):
            raise ExportError(f"{name}: label out of range")
        outline = ms.maps == NO_DIE
        if not (outline == outline[0]).all():
            raise ExportError(f"{name}: maps of more than one product")
        counts = class_counts(ms, len(classes))
        if counts.min() == 0:
            missing = [classes[k] for k in np.flatnonzero(counts == 0)]
            raise ExportError(f"{name}: no maps of {missing}")
    counts = class_counts(train, len(classes))
    if counts.max() > 3 * counts.min():
        rare = classes[int(counts.argmin())]
        warnings.append(f"train: classes are unbalanced ({counts.max()} maps of the largest, "
                        f"{counts.min()} of {rare})")
    shares = [((m == FAIL).sum() / max(1, (m != NO_DIE).sum())) for m in train.maps]
    if np.mean(np.array(shares) > 0.9) > 0.05:
        warnings.append("train: more than 5% of the maps fail almost every die: tester down?")
    if train.maps.shape[1:] != val.maps.shape[1:]:
        raise ExportError("train and val maps differ in size")
    keys = {}
    dups = 0
    for i in range(len(train)):
        key = (str(train.lots[i]), int(train.wafers[i]), train.maps[i].tobytes())
        dups += key in keys
        keys[key] = i
    if dups:
        warnings.append(f"train: {dups} maps exported twice (same lot, wafer and bins): re-tested wafers")
    return warnings
