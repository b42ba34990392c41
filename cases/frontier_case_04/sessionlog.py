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
    def __init__(self, rows):
        self.rows = list(rows)
        self._index = {r.session: r for r in self.rows}

    @classmethod
    def read(cls, export_dir="data/exports"):
        with open(Path(export_dir) / "sessions.csv", newline="") as fh:
            rows = [Session(r["date"], r["booth"].upper(), int(r["session"]), r["bird"],
                            r["female"].strip().lower() in ("yes", "y", "1", "true"))
                    for r in csv.DictReader(fh)]
        return cls(rows)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, session):
        return self._index[session]

    def span(self):
        dates = sorted(r.date for r in self.rows)
        return dates[0], dates[-1]

    def per_booth(self):
        return dict(sorted(Counter(r.booth for r in self.rows).items()))

    def female_share(self):
        return sum(r.female for r in self.rows) / max(1, len(self.rows))
