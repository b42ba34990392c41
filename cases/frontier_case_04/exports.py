"""Reading the booth exports: one CSV of bouts per booth, the lab's session log, the bird register."""

import csv
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Bout:
    booth: str
    session: int
    bout: int
    bird: str
    syllables: tuple


def read_booth(path):
    booth = Path(path).stem.split("_")[-1].upper()
    out = []
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            sylls = tuple(row["syllables"].split())
            if not sylls:
                continue
            out.append(Bout(booth, int(row["session"]), int(row["bout"]), row["bird"], sylls))
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
