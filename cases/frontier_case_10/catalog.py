"""Reading the stations' pick exports into one record table.

data/exports/<station>.csv: one row per pick (band energies in digitizer counts). data/envelopes/<station>.csv:
each pick's amplitude envelope, one row per sample at the station's own sample rate (short-period and broadband
boxes differ), brought onto the model's common time grid here.
"""

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CLASSES = ("volcano_tectonic", "long_period", "tremor", "rockfall", "noise")
META = ("record_id", "station", "t_hours", "label")
ENVELOPE_GRID = np.arange(0.0, 24.0, 1.0)   # s after the pick, the model's common rate (1 sample/s)


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


def read_envelopes(path, grid=ENVELOPE_GRID):
    """{record_id: envelope on the common grid} from one station's envelope file."""
    samples = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            samples.setdefault(row["record_id"], []).append((float(row["t_s"]), float(row["log_env"])))
    out = {}
    for rid, rows in samples.items():
        t, v = np.array(rows, dtype=np.float64).T
        out[rid] = np.interp(grid, t, v).astype(np.float32)
    return out


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
        env = read_envelopes(envelope_dir / path.name)
        missing = [r[0] for r in rows if r[0] not in env]
        if missing:
            raise ValueError(f"{path}: {len(missing)} records without an envelope, e.g. {missing[0]}")
        envelopes += [env[r[0]] for r in rows]
    table = RecordTable(np.array(ids), np.array(stations), np.array(times, dtype=np.float64),
                        np.vstack(bands), np.array(labels, dtype=np.int64), np.stack(envelopes), names)
    return table.take(np.argsort(table.t_hours, kind="stable"))
