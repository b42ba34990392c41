"""Reading the archive export into recordings in physical units.

The export (``data/``) comes as three files per year:

- ``captures_<year>.npz``: the year's captures in capture order (raw signed 16-bit counts of one
  accelerometer channel at the logger's native rate, concatenated; each capture's length, rate,
  logger, pump and the condition the operators logged);
- ``ranges_<year>.csv``: the range sheet the logger network keeps, the full scale in m/s^2 that
  auto-ranging picked for each capture;
- ``tach_<year>.jsonl``: the keyphasor channel, one line per capture with its pulse times as the
  logger stamped them (one pulse per shaft revolution).

``recheck.csv`` is the technicians' re-labelling of a random subset (not used in training).
"""

import csv
import json
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
    pulses: torch.Tensor  # keyphasor pulse times


class RangeSheet:
    """Full scale of every capture, looked up by the year's file and the capture number."""

    def __init__(self, sheets):
        self.full_scale = {}
        for year, rows in sheets.items():
            for row in rows:
                self.full_scale[year, int(row["capture"])] = float(row["full_scale"])

    def check(self, year, captures):
        missing = [int(c) for c in captures if (year, int(c)) not in self.full_scale]
        if missing:
            raise ValueError(f"range sheet {year} has no entry for {len(missing)} captures, e.g. {missing[:3]}")

    def to_physical(self, year, capture, counts):
        return counts.astype(np.float64) * (self.full_scale[year, int(capture)] / FULL_COUNTS)


def years(root):
    return sorted(int(p.stem.split("_")[1]) for p in Path(root).glob("captures_*.npz"))


def read_tach(path):
    """{capture: pulse times} for one year's keyphasor file."""
    out = {}
    with open(path) as fh:
        for line in fh:
            row = json.loads(line)
            out[int(row["capture"])] = torch.tensor(row["pulses"])
    return out


def read(root):
    """Every capture of the export, year by year in capture order, as a Recording in m/s^2."""
    root = Path(root)
    found = years(root)
    if not found:
        raise FileNotFoundError(f"no captures_<year>.npz under {root}")
    sheets = {}
    for y in found:
        with open(root / f"ranges_{y}.csv", newline="") as fh:
            sheets[y] = list(csv.DictReader(fh))
    sheet = RangeSheet(sheets)
    recs = []
    for y in found:
        with np.load(root / f"captures_{y}.npz") as z:
            cols = {k: z[k] for k in z.files}
        sheet.check(y, cols["capture"])
        tach = read_tach(root / f"tach_{y}.jsonl")
        ends = np.cumsum(cols["length"])
        for i, capture in enumerate(cols["capture"]):
            counts = cols["counts"][ends[i] - cols["length"][i]:ends[i]]
            wave = sheet.to_physical(y, capture, counts).astype(np.float32)
            recs.append(Recording(wave, int(cols["rate"][i]), str(cols["logger"][i]), int(cols["label"][i]),
                                  int(cols["pump"][i]), y, tach[int(capture)]))
    return recs
