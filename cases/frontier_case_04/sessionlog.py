"""The lab's session log: who was in the booth, when, and whether a female was presented."""

import csv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Session:
    date: str
    booth: str
    session: int
    bird: str
    female: bool


class SessionLog:
    """The log's rows in calendar order (the booth sheets are appended to the file whenever someone gets
    to them), booth and bird within a day, so a day's roster reads the same in every report."""

    def __init__(self, rows):
        self.rows = sorted(rows, key=lambda r: (r.date, r.booth, r.bird))

    @classmethod
    def read(cls, export_dir="data/exports"):
        with open(Path(export_dir) / "sessions.csv", newline="") as fh:
            rows = [Session(r["date"], r["booth"].upper(), int(r["session"]), r["bird"],
                            r["female"].strip().lower() in ("yes", "y", "1", "true"))
                    for r in csv.DictReader(fh)]
        return cls(rows)

    def __len__(self):
        return len(self.rows)

    def by_booth(self):
        out = {}
        for r in self.rows:
            out.setdefault(r.booth, []).append(r)
        return out

    def span(self):
        return self.rows[0].date, self.rows[-1].date

    def per_booth(self):
        return dict(sorted(Counter(r.booth for r in self.rows).items()))

    def roster(self, date):
        """(booth, bird) pairs recorded on one day."""
        return [(r.booth, r.bird) for r in self.rows if r.date == date]

    def female_share(self):
        return sum(r.female for r in self.rows) / max(1, len(self.rows))
