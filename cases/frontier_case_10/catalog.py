"""Reading the stations' pick exports into one record table.

data/exports/<station>.csv: one row per pick (band energies in digitizer counts). data/envelopes/<station>.npy:
the station box's amplitude channel around each pick (counts, 2 samples/s), one 240 s buffer per pick in the
export's row order, the pick 120 s into its buffer. Each pick's envelope is the STA/LTA ratio of its buffer on the
model's common grid.
"""

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CLASSES = ("volcano_tectonic", "long_period", "tremor", "rockfall", "noise")
META = ("record_id", "station", "t_hours", "label")
ENVELOPE_GRID = np.arange(0.0, 24.0, 1.0)   # s after the pick, the model's common rate (1 sample/s)
RATE, PRE_S, BUFFER_S = 2, 120, 240
STA_S, LTA_S = 1.0, 60.0


@dataclass
class RecordTable:
    """One row per picked record."""
    record_ids: np.ndarray
    stations: np.ndarray
    t_hours: np.ndarray
    bands: np.ndarray             # (n, n_bands) float32, log10 band energy in digitizer counts
    labels: np.ndarray            # (n,) int64 index into classes
    envelopes: np.ndarray         # (n, len(ENVELOPE_GRID)) float32, log10 amplitude relative to the peak
    band_names: tuple
    classes: tuple = CLASSES

    def __len__(self):
        return len(self.labels)

    def take(self, index):
        index = np.asarray(index)
        return RecordTable(self.record_ids[index], self.stations[index], self.t_hours[index],
                           self.bands[index], self.labels[index], self.envelopes[index], self.band_names, self.classes)

    def counts(self):
        return np.bincount(self.labels, minlength=len(self.classes))


def read_export(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        if tuple(header[:len(META)]) != META:
            raise ValueError(f"{path}: unexpected header {header[:len(META)]}")
        rows = list(reader)
    names = tuple(header[len(META):])
    bands = np.array([[float(v) for v in r[len(META):]] for r in rows], dtype=np.float32).reshape(len(rows), len(names))
    return names, rows, bands


def moving_average(x, n):
    """Mean of every n consecutive samples: out[i] = x[i:i + n].mean()."""
    c = np.concatenate([[0.0], np.cumsum(x)])
    return (c[n:] - c[:-n]) / n


def read_envelopes(path, n_picks, grid=ENVELOPE_GRID):
    """(n_picks, len(grid)) envelopes from one station's amplitude buffers: log10 of the short-term average
    on the grid over the long-term average before the pick (the trigger's STA/LTA ratio)."""
    x = np.load(path)
    per = BUFFER_S * RATE
    if x.shape != (n_picks * per,):
        raise ValueError(f"{path}: {x.shape[0]} samples for {n_picks} picks of {per}")
    n_sta, n_lta = int(STA_S * RATE), int(LTA_S * RATE)
    sta, lta = moving_average(x, n_sta), moving_average(x, n_lta)
    picks = np.arange(n_picks) * per + PRE_S * RATE
    ratio = sta[picks[:, None] + (grid * RATE).astype(int)] / lta[picks - n_lta][:, None]
    return np.log10(ratio).astype(np.float32)


def load_exports(export_dir="data/exports", envelope_dir=None):
    """Every station's export merged into one network catalog, in pick-time order (ties keep the
    exports' order): the order the analysts work through the picks, and the one the gap feature needs.
    The envelopes are read from `envelope_dir` (by default data/envelopes next to the exports)."""
    paths = sorted(Path(export_dir).glob("*.csv"))
    envelope_dir = Path(envelope_dir) if envelope_dir else Path(export_dir).parent / "envelopes"
    if not paths:
        raise FileNotFoundError(f"no exports in {export_dir}")
    ids, stations, times, labels, bands, envelopes, names = [], [], [], [], [], [], None
    for path in paths:
        n, rows, b = read_export(path)
        if names is not None and n != names:
            raise ValueError(f"{path}: band columns differ from the other exports")
        names = n
        unknown = {r[3] for r in rows} - set(CLASSES)
        if unknown:
            raise ValueError(f"{path}: unknown labels {sorted(unknown)}")
        ids += [r[0] for r in rows]
        stations += [r[1] for r in rows]
        times += [float(r[2]) for r in rows]
        labels += [CLASSES.index(r[3]) for r in rows]
        bands.append(b)
        envelopes.append(read_envelopes(envelope_dir / f"{path.stem}.npy", len(rows)))
    table = RecordTable(np.array(ids), np.array(stations), np.array(times, dtype=np.float64),
                        np.vstack(bands), np.array(labels, dtype=np.int64), np.vstack(envelopes), names)
    return table.take(np.argsort(table.t_hours, kind="stable"))
