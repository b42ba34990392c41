"""Impact features of a pass: the detector's impacts grouped by the wheel revolution they fall in.

Each export row lists the impacts the strain gauges picked up as `sample@force` pairs (the detector's sample
counter at the impact's peak, kN), and the counter's value when the axle passed the measuring zone's entry
and exit heads (`axle_in`, `axle_out`). The zone is three revolutions of a 920 mm wheel long, so where an
impact falls between the two stamps gives its revolution. A wheel flat strikes once per revolution, an oval
wheel twice, shelling anywhere, so the count and the force of the impacts per revolution tell the defects
apart where the band energies overlap.
"""

import numpy as np

SAMPLE_RATE_HZ = 25_600
ZONE_REVOLUTIONS = 3
NAMES = ("hits_per_rev", "max_hits_rev", "rev_peak_cv")


def parse_impacts(text):
    """'10427338154@184.2 10427345907@176.0 ...' -> (sample counts, forces in kN)."""
    pairs = [item.split("@") for item in text.split()]
    counts = [int(c) for c, _ in pairs]
    forces = np.array([float(k) for _, k in pairs], dtype=np.float32)
    return counts, forces


def revolution_features(t, t_in, t_out, forces, revolutions=ZONE_REVOLUTIONS):
    """Mean and largest number of impacts per revolution with any impact, and the coefficient of variation
    of the revolutions' peak forces (0 for a single revolution); `t` holds the impacts' times and `t_in`,
    `t_out` the axle's at the zone's heads, in seconds."""
    if len(t) == 0:
        return np.zeros(len(NAMES), dtype=np.float32)
    rev = np.floor(revolutions * (t - t_in) / (t_out - t_in)).astype(np.int64)
    _, slot, hits = np.unique(rev, return_inverse=True, return_counts=True)
    peaks = np.zeros(len(hits), dtype=np.float32)
    np.maximum.at(peaks, slot, forces)
    cv = peaks.std() / peaks.mean() if len(peaks) > 1 else 0.0
    return np.array([hits.mean(), hits.max(), cv], dtype=np.float32)
