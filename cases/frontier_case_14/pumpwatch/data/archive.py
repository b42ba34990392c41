"""Reading the archive export into recordings in physical units.

The export (``data/``) comes as three files per year:

- ``captures_<year>.npz``: the year's captures in capture order (raw signed 16-bit counts of one
  accelerometer channel at the logger's native rate, concatenated; each capture's length, rate,
  logger, pump and the condition the operators logged);
- ``sheet_<year>.csv``: the capture sheet the logger network keeps, one row per capture: the full
  scale in m/s^2 that auto-ranging picked, and the drive's readings at the capture's first and last
  sample (``<name>_start``, ``<name>_end``).

``recheck.csv`` is the technicians' re-labelling of a random subset (not used in training).
"""

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

CLASSES = ("normal", "imbalance", "misalignment", "bearing", "cavitation")
FULL_COUNTS = 32767


@dataclass
class Recording:
    wave: np.ndarray      # acceleration, m/s^2, at the logger's native rate
    rate: int
    logger: str
    label: int
    pump: int
    year: int
    readings: dict        # the capture sheet's row: column name -> value


class CaptureSheet:
    """One year's capture sheet as a table, rows looked up by capture number."""

    def __init__(self, path):
        with open(path, newline="") as fh:
            reader = csv.reader(fh)
            self.columns = tuple(next(reader))
            rows = [[float(v) for v in row] for row in reader]
        if "capture" not in self.columns or "full_scale" not in self.columns:
            raise ValueError(f"{path}: expected capture and full_scale columns, got {self.columns}")
        self.table = torch.tensor(rows)
        numbers = self.table[:, self.columns.index("capture")].long().tolist()
        self.row = {c: i for i, c in enumerate(numbers)}

    def check(self, year, captures):
        missing = [int(c) for c in captures if int(c) not in self.row]
        if missing:
            raise ValueError(f"capture sheet {year} has no entry for {len(missing)} captures, e.g. {missing[:3]}")

    def readings(self, capture):
        values = self.table[self.row[int(capture)]]
        return {name: values[j] for j, name in enumerate(self.columns) if name != "capture"}

    def to_physical(self, capture, counts):
        full_scale = float(self.readings(capture)["full_scale"])
        return counts.astype(np.float64) * (full_scale / FULL_COUNTS)


def years(root):
    return sorted(int(p.stem.split("_")[1]) for p in Path(root).glob("captures_*.npz"))


def read(root):
    """Every capture of the export, year by year in capture order, as a Recording in m/s^2."""
    root = Path(root)
    found = years(root)
    if not found:
        raise FileNotFoundError(f"no captures_<year>.npz under {root}")
    recs = []
    for y in found:
        with np.load(root / f"captures_{y}.npz") as z:
            cols = {k: z[k] for k in z.files}
        sheet = CaptureSheet(root / f"sheet_{y}.csv")
        sheet.check(y, cols["capture"])
        ends = np.cumsum(cols["length"])
        for i, capture in enumerate(cols["capture"]):
            counts = cols["counts"][ends[i] - cols["length"][i]:ends[i]]
            wave = sheet.to_physical(capture, counts).astype(np.float32)
            recs.append(Recording(wave, int(cols["rate"][i]), str(cols["logger"][i]), int(cols["label"][i]),
                                  int(cols["pump"][i]), y, sheet.readings(capture)))
    return recs
