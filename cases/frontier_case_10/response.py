"""Station responses: the digitizer counts of each record converted to ground motion (log10 nm/s).

stations.csv lists every station's sensitivity (log10 counts per nm/s at the flat part of its response) and
its seismometer's corner frequency from a start time on; a station whose digitizer or gain changed has one
row per epoch, and each record uses the epoch its pick falls in. Below the corner a velocity seismometer's
output falls off as f^2 (damping 0.707); each band is corrected at its centre frequency.
"""

import csv

import numpy as np

BAND_HZ = 0.2 * 100.0 ** (np.arange(16) / 15)  # centre frequencies of the boxes' 16 bands (0.2-20 Hz)


def log_gain(f_hz, corner_hz):
    """log10 of a damped (h = 0.707) velocity seismometer's relative gain at f_hz."""
    r2 = (np.asarray(f_hz, dtype=np.float64) / corner_hz) ** 2
    return np.log10(r2 / np.sqrt(1.0 + r2 ** 2))


def read_stations(path):
    """{station: [(from_hours, log10 sensitivity, corner Hz), ...]} in time order."""
    epochs = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            epochs.setdefault(row["station"], []).append((float(row["from_hours"]),
                                                          float(row["log10_counts_per_nm_s"]),
                                                          float(row["corner_hz"])))
    return {s: sorted(e) for s, e in epochs.items()}


class StationResponse:
    """The sensitivity and corner of every record of a table, looked up once, station by station; calling it
    on that table's band energies (in counts) returns them in log10 nm/s."""

    def __init__(self, table, path):
        epochs = read_stations(path)
        missing = sorted(set(table.stations) - set(epochs))
        if missing:
            raise KeyError(f"no response for stations {missing} in {path}")
        sens = np.empty(len(table), dtype=np.float64)
        corner = np.empty(len(table), dtype=np.float64)
        for station in sorted(set(table.stations)):
            rows = epochs[station]
            mine = np.flatnonzero(table.stations == station)
            t = table.t_hours[mine]
            starts = np.array([r[0] for r in rows])
            if t.min() < starts[0]:
                raise ValueError(f"{station}: records before its first response epoch")
            which = np.searchsorted(starts, t, side="right") - 1
            sens[mine] = np.array([r[1] for r in rows])[which]
            corner[mine] = np.array([r[2] for r in rows])[which]
        self.log_sensitivity = sens
        self.corner_hz = corner
        self.stations = tuple(sorted(epochs))

    def __len__(self):
        return len(self.log_sensitivity)

    def __call__(self, counts):
        counts = np.asarray(counts, dtype=np.float64)
        if counts.shape[0] != len(self):
            raise ValueError(f"{counts.shape[0]} records, response has {len(self)}")
        gain = log_gain(BAND_HZ[None, :counts.shape[1]], self.corner_hz[:, None])
        return counts - self.log_sensitivity[:, None] - gain
