"""Station responses: the digitizer counts of each record converted to ground motion (log10 nm/s).

stations.csv lists every station's sensitivity (log10 counts per nm/s) from a start time on; a station whose
digitizer or gain changed has one row per epoch, and each record uses the epoch its pick falls in.
"""

import csv
from pathlib import Path

import numpy as np

from catalog import read_export


def read_stations(path):
    """{station: [(from_hours, log10 sensitivity), ...]} in time order."""
    epochs = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            epochs.setdefault(row["station"], []).append((float(row["from_hours"]),
                                                          float(row["log10_counts_per_nm_s"])))
    return {s: sorted(e) for s, e in epochs.items()}


class StationResponse:
    """The sensitivity of every exported record, looked up once, station file by station file; calling it
    on the catalog's band energies (in counts) returns them in log10 nm/s."""

    def __init__(self, path, export_dir="data/exports"):
        epochs = read_stations(path)
        parts = []
        for export in sorted(Path(export_dir).glob("*.csv")):
            _, rows, _ = read_export(export)
            stations = np.array([r[1] for r in rows])
            t_hours = np.array([float(r[2]) for r in rows])
            sens = np.empty(len(rows), dtype=np.float32)
            for station in np.unique(stations):
                if station not in epochs:
                    raise KeyError(f"no response for station {station} in {path}")
                rows_s = epochs[station]
                mine = np.flatnonzero(stations == station)
                starts = np.array([r[0] for r in rows_s])
                if t_hours[mine].min() < starts[0]:
                    raise ValueError(f"{station}: records before its first response epoch")
                which = np.searchsorted(starts, t_hours[mine], side="right") - 1
                sens[mine] = np.array([r[1] for r in rows_s], dtype=np.float32)[which]
            parts.append(sens)
        if not parts:
            raise FileNotFoundError(f"no exports in {export_dir}")
        self.log_sensitivity = np.concatenate(parts)
        self.stations = tuple(sorted(epochs))

    def __len__(self):
        return len(self.log_sensitivity)

    def __call__(self, counts):
        counts = np.asarray(counts, dtype=np.float32)
        if counts.shape[0] != len(self):
            raise ValueError(f"{counts.shape[0]} records, response has {len(self)}")
        return counts - self.log_sensitivity[:, None]
