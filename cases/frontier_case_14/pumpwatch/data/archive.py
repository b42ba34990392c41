"""Reading the archive export into recordings in physical units.

The export comes as one file per year. Each file lists the year's captures (raw 16-bit counts at the
logger's native rate, the pump, the logger and the condition the operators logged) and the range
sheet the logger network keeps: the full scale, in m/s^2, that auto-ranging picked for each capture.
"""

from dataclasses import dataclass

import numpy as np

FULL_COUNTS = 32767


@dataclass
class Recording:
    wave: np.ndarray   # acceleration, m/s^2, at the logger's native rate
    rate: int
    logger: str
    label: int
    pump: int
    year: int


class RangeSheet:
    """Full scale of every capture, looked up by the year's file and the capture number."""

    def __init__(self, files):
        self.full_scale = {}
        for f in files:
            for row in f["ranges"]:
                self.full_scale[f["year"], int(row["capture"])] = float(row["full_scale"])

    def check(self, files):
        missing = [(f["year"], c.capture) for f in files for c in f["captures"]
                   if (f["year"], c.capture) not in self.full_scale]
        if missing:
            raise ValueError(f"range sheet has no entry for {len(missing)} captures, e.g. {missing[:3]}")

    def to_physical(self, year, capture):
        return capture.counts.astype(np.float64) * (self.full_scale[year, capture.capture] / FULL_COUNTS)


def read(files):
    """Every capture of the export, in file order, as a Recording in m/s^2."""
    sheet = RangeSheet(files)
    sheet.check(files)
    return [Recording(sheet.to_physical(f["year"], c).astype(np.float32), c.rate, c.logger, c.label, c.pump, f["year"])
            for f in files for c in f["captures"]]
