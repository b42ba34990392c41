"""Reading the farms' collar exports and splitting them by cow."""

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

STATES = ("normal", "heat", "lame", "mastitis", "ketosis")
META = ("window_id", "collar", "start_h", "state")
BUNK = ("bunk_visits", "logged_h")   # the feed bunk's RFID reader: visits in the window, hours the tag was in range


@dataclass
class WindowTable:
    """One row per six-hour collar window, in the exports' order."""
    window_ids: np.ndarray
    collars: np.ndarray
    farms: np.ndarray
    start_h: np.ndarray
    features: np.ndarray          # (n, n_features) float32, as the gateway scales them
    labels: np.ndarray            # (n,) int64 index into classes
    feature_names: tuple
    visits: np.ndarray            # (n,) feed-bunk visits in the window, from the bunk reader
    logged_h: np.ndarray          # (n,) hours of the window the cow's tag was in the reader's range
    classes: tuple = STATES

    def __len__(self):
        return len(self.labels)

    def take(self, index):
        index = np.asarray(index)
        return WindowTable(self.window_ids[index], self.collars[index], self.farms[index],
                           self.start_h[index], self.features[index], self.labels[index],
                           self.feature_names, self.visits[index], self.logged_h[index], self.classes)

    def counts(self):
        return np.bincount(self.labels, minlength=len(self.classes))


def read_export(path):
    """One gateway export: the window columns, the gateway's scaled readings, the bunk reader's columns."""
    df = pd.read_csv(path)
    if tuple(df.columns[:len(META)]) != META or tuple(df.columns[-len(BUNK):]) != BUNK:
        raise ValueError(f"{path}: unexpected columns {list(df.columns)}")
    return df, tuple(df.columns[len(META):-len(BUNK)])


def load_exports(export_dir="data/exports"):
    """Every farm's export, concatenated in file-name order."""
    paths = sorted(Path(export_dir).glob("*.csv"))
    if not paths:
        raise FileNotFoundError(f"no exports in {export_dir}")
    frames, names = [], None
    for path in paths:
        df, n = read_export(path)
        if names is not None and n != names:
            raise ValueError(f"{path}: feature columns differ from the other exports")
        names = n
        unknown = set(df["state"]) - set(STATES)
        if unknown:
            raise ValueError(f"{path}: unknown states {sorted(unknown)}")
        frames.append(df.assign(farm=path.stem))
    df = pd.concat(frames, ignore_index=True)
    return WindowTable(df["window_id"].to_numpy(str), df["collar"].to_numpy(str), df["farm"].to_numpy(str),
                       df["start_h"].to_numpy(copy=True), df[list(names)].to_numpy(np.float32),
                       np.array([STATES.index(s) for s in df["state"]], dtype=np.int64), names,
                       df["bunk_visits"].to_numpy(), df["logged_h"].to_numpy())


def split_by_cow(table, val_fraction, seed):
    """Hold out whole cows (a share of each farm's), so no cow is in both splits."""
    rng = np.random.default_rng(seed)
    is_val = np.zeros(len(table), dtype=bool)
    for farm in sorted(set(table.farms)):
        here = table.farms == farm
        collars = sorted(set(table.collars[here]))
        k = max(1, int(round(val_fraction * len(collars))))
        held = rng.choice(collars, size=k, replace=False)
        is_val |= here & np.isin(table.collars, held)
    return table.take(np.flatnonzero(~is_val)), table.take(np.flatnonzero(is_val))
