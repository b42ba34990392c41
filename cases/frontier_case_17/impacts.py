"""Impact features of a pass: the detector's impacts grouped by the wheel revolution they fall in.

Each export row lists the impacts the gauges picked up as `position@force` pairs (metres along the
measuring zone from the start of the record, kN) and the axle's reference position in the same record
(`axle_m`, from the axle counter). A wheel flat strikes once per revolution,
an oval wheel twice, shelling anywhere, so the count and the force of the impacts per revolution tell the
defects apart where the band energies overlap.
"""

import numpy as np

WHEEL_CIRCUMFERENCE_M = 2.89      # 920 mm ore-wagon wheels
NAMES = ("hits_per_rev", "max_hits_rev", "rev_peak_cv")


def parse_impacts(text):
    """'12.031@184.2 14.902@176.0 ...' -> (positions in m, forces in kN)."""
    pairs = [item.split("@") for item in text.split()]
    if not pairs:
        return np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.float32)
    pos, kn = np.array(pairs, dtype=np.float32).T
    return pos, kn


def revolution_features(along, forces, circumference=WHEEL_CIRCUMFERENCE_M):
    """Mean and largest number of impacts per revolution with any impact, and the coefficient of variation
    of the revolutions' peak forces (0 for a single revolution); `along` is each impact's distance from the
    axle's reference position."""
    if len(along) == 0:
        return np.zeros(len(NAMES), dtype=np.float32)
    rev = (along / circumference).astype(np.int64)
    _, slot, hits = np.unique(rev, return_inverse=True, return_counts=True)
    peaks = np.zeros(len(hits), dtype=np.float32)
    np.maximum.at(peaks, slot, forces)
    cv = peaks.std() / peaks.mean() if len(peaks) > 1 else 0.0
    return np.array([hits.mean(), hits.max(), cv], dtype=np.float32)
