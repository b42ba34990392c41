"""Reading the archive export into recordings in physical units.

The export (``data/``) comes as three files per year:

- ``captures_<year>.npz``: the year's captures in capture order (raw signed 16-bit counts of one
  accelerometer channel at the logger's native rate, concatenated; each capture's length, rate,
  logger, pump and the condition the operators logged);
- ``sheet_<year>.csv``: the capture sheet the logger network keeps, one row per capture: the full
  scale in m/s^2 that auto-ranging picked and the logger that took it.

``recheck.csv`` is the technicians' re-labelling of a random subset (not used in training).
"""

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

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


class CaptureSheet:
    """One year's capture sheet, rows looked up by capture number."""

    def __init__(self, path):
        with open(path, newline="") as fh:
            rows = list(csv.DictReader(fh))
        if not rows or "capture" not in rows[0] or "full_scale" not in rows[0]:
            raise ValueError(f"{path}: expected capture and full_scale columns")
        self.row = {int(r["capture"]): r for r in rows}

    def check(self, year, captures):
        missing = [int(c) for c in captures if int(c) not in self.row]
        if missing:
            raise ValueError(f"capture sheet {year} has no entry for {len(missing)} captures, e.g. {missing[:3]}")

    def full_scale(self, capture):
        return float(self.row[int(capture)]["full_scale"])

    def to_physical(self, capture, counts):
        return counts.astype(np.float64) * (self.full_scale(capture) / FULL_COUNTS)


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
                                  int(cols["pump"][i]), y))
    return recs
