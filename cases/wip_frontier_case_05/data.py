"""Station exports: one CSV per docking station (hourly pickups plus the city's weather feed).

Each file has `timestamp, pickups, temp_c, rain_mm, holiday`, one row per hour, in time order. The
last `holdout_weeks` weeks of every station are held out for evaluation; everything before them is
training data.
"""

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

COLUMNS = ("pickups", "temp_c", "rain_mm", "holiday")
HOURS_PER_WEEK = 168


@dataclass
class Station:
    name: str
    time: np.ndarray        # datetime64[h]
    pickups: np.ndarray     # float64, bikes taken out in the hour
    temp_c: np.ndarray
    rain_mm: np.ndarray
    holiday: np.ndarray     # 0/1

    def __len__(self):
        return len(self.pickups)

    def slice(self, start, stop):
        return Station(self.name, self.time[start:stop], self.pickups[start:stop],
                       self.temp_c[start:stop], self.rain_mm[start:stop], self.holiday[start:stop])


def read_station(path):
    path = Path(path)
    times, cols = [], {c: [] for c in COLUMNS}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            times.append(row["timestamp"].replace(" ", "T"))
            for c in COLUMNS:
                cols[c].append(float(row[c]))
    return Station(path.stem, np.array(times, dtype="datetime64[h]"),
                   *(np.asarray(cols[c], dtype=np.float64) for c in COLUMNS))


def load_stations(data_dir, names=None):
    files = sorted(Path(data_dir).glob("*.csv"))
    if names:
        by_name = {f.stem: f for f in files}
        missing = [n for n in names if n not in by_name]
        if missing:
            raise FileNotFoundError(f"no export for station(s) {missing} in {data_dir}")
        files = [by_name[n] for n in names]
    if not files:
        raise FileNotFoundError(f"no station exports in {data_dir}")
    return [read_station(f) for f in files]


def split_holdout(stations, holdout_weeks):
    """Time split: the last `holdout_weeks` weeks of each station are the held-out part."""
    train, held = [], []
    for st in stations:
        cut = len(st) - holdout_weeks * HOURS_PER_WEEK
        if cut <= 0:
            raise ValueError(f"{st.name}: {len(st)} hours, cannot hold out {holdout_weeks} weeks")
        train.append(st.slice(0, cut))
        held.append(st.slice(cut, len(st)))
    return train, held
