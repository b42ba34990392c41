"""Reading the booth exports: per booth, the bout detector's windows (booth_<x>.csv) and the syllable
segmenter's syllables (syllables_<x>.csv: one row per syllable, its onset and offset and its energy in six
frequency bands, and the classifier's label); the lab's session log; the bird register."""

import csv
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

TAIL_S = 0.002   # the segmenter marks short notes' offsets early by about this much
SHORT_S = 0.055


@dataclass(frozen=True)
class Bout:
    booth: str
    session: int
    bout: int
    bird: str
    syllables: tuple
    measures: object = None  # float [n, len(columns)]: the segmenter's numbers for each syllable, in file order
    columns: tuple = ()


def _rows_by_session(path):
    out = defaultdict(list)
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            out[int(row["session"])].append(row)
    return out


def read_booth(path):
    """One booth's bouts. The detector writes one window per bout, [start, end) in seconds from the session's
    recording start; the segmenter writes one row per syllable (onset and offset on the same clock, then its
    band energies in dB) and the classifier adds the label. Each syllable goes to the window it starts in.
    Short notes (under 60 ms) lose about 2 ms of their tail to the segmenter's envelope follower (the lab's
    2025 calibration against hand-marked offsets): their offsets are moved back by that much."""
    path = Path(path)
    booth = path.stem.split("_")[-1].upper()
    windows = _rows_by_session(path)
    onsets = _rows_by_session(path.with_name(f"syllables_{booth.lower()}.csv"))
    columns = None
    out = []
    for session in sorted(windows):
        wins = sorted(windows[session], key=lambda w: float(w["start"]))
        starts = np.array([float(w["start"]) for w in wins])
        sylls = sorted(onsets.get(session, []), key=lambda r: float(r["onset"]))
        times = np.array([float(r["onset"]) for r in sylls])
        members = [[] for _ in wins]
        for i, r in zip(np.searchsorted(starts, times, side="right") - 1, sylls):
            members[i].append(r)
        for w, m in zip(wins, members):
            if not m:
                continue
            columns = columns or tuple(c for c in m[0] if c not in ("session", "syllable"))
            table = np.array([[float(r[c]) for c in columns] for r in m])
            on, off = columns.index("onset"), columns.index("offset")
            table[table[:, off] - table[:, on] < SHORT_S, off] += TAIL_S
            out.append(Bout(booth, session, int(w["bout"]), w["bird"], tuple(r["syllable"] for r in m),
                            table, columns))
    return out


def load_bouts(export_dir="data/exports"):
    """Every bout of every booth file (booth_*.csv), in file order."""
    bouts = []
    for path in sorted(Path(export_dir).glob("booth_*.csv")):
        bouts.extend(read_booth(path))
    if not bouts:
        raise FileNotFoundError(f"no booth_*.csv under {export_dir}")
    return bouts


def load_birds(export_dir="data/exports"):
    """bird -> cohort ('2024a' adults, '2025b' this winter's juveniles)."""
    with open(Path(export_dir) / "birds.csv", newline="") as fh:
        return {row["bird"]: row["cohort"] for row in csv.DictReader(fh)}


def split_sessions(bouts, val_fraction, seed):
    """Hold out whole sessions: about val_fraction of each bird's sessions go to validation."""
    import numpy as np

    rng = np.random.default_rng(seed)
    by_bird = {}
    for b in bouts:
        by_bird.setdefault(b.bird, set()).add((b.booth, b.session))
    held = set()
    for bird in sorted(by_bird):
        keys = sorted(by_bird[bird])
        n = max(1, round(len(keys) * val_fraction))
        for i in rng.choice(len(keys), size=n, replace=False):
            held.add(keys[int(i)])
    train = [b for b in bouts if (b.booth, b.session) not in held]
    val = [b for b in bouts if (b.booth, b.session) in held]
    return train, val
