"""Reading the stations' pick exports into one record table.

data/exports/<station>.csv: one row per pick, the analyst's label and the pick's columns as the station box
writes them (band energies in digitizer counts, then the pick's rise and coda in seconds).
"""

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

CLASSES = ("volcano_tectonic", "long_period", "tremor", "rockfall", "noise")
META = ("record_id", "station", "t_hours", "label")


@dataclass
class RecordTable:
    """One row per picked record."""
    record_ids: np.ndarray
    stations: np.ndarray
    t_hours: np.ndarray
    columns: torch.Tensor         # (n, len(names)) the export's columns after the label
    labels: np.ndarray            # (n,) int64 index into classes
    names: tuple
    classes: tuple = CLASSES

    def __len__(self):
        return len(self.labels)

    def take(self, index):
        index = np.asarray(index)
        return RecordTable(self.record_ids[index], self.stations[index], self.t_hours[index],
                           self.columns[torch.as_tensor(index)], self.labels[index], self.names, self.classes)

    @property
    def band_names(self):
        return tuple(n for n in self.names if n.startswith("band_"))

    @property
    def bands(self):
        """(n, n_bands) log10 band energies in digitizer counts."""
        return self.columns[:, [self.names.index(n) for n in self.band_names]].numpy()

    def column(self, name):
        return self.columns[:, self.names.index(name)]

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
    values = [[float(v) for v in r[len(META):]] for r in rows]
    return names, rows, values


def load_exports(export_dir="data/exports"):
    """Every station's export merged into one network catalog, in pick-time order (ties keep the
    exports' order): the order the analysts work through the picks, and the one the gap feature needs."""
    paths = sorted(Path(export_dir).glob("*.csv"))
    if not paths:
        raise FileNotFoundError(f"no exports in {export_dir}")
    ids, stations, times, labels, values, names = [], [], [], [], [], None
    for path in paths:
        n, rows, v = read_export(path)
        if names is not None and n != names:
            raise ValueError(f"{path}: columns differ from the other exports")
        names = n
        unknown = {r[3] for r in rows} - set(CLASSES)
        if unknown:
            raise ValueError(f"{path}: unknown labels {sorted(unknown)}")
        ids += [r[0] for r in rows]
        stations += [r[1] for r in rows]
        times += [float(r[2]) for r in rows]
        labels += [CLASSES.index(r[3]) for r in rows]
        values += v
    table = RecordTable(np.array(ids), np.array(stations), np.array(times, dtype=np.float64),
                        torch.tensor(values, dtype=torch.float64), np.array(labels, dtype=np.int64), names)
    return table.take(np.argsort(table.t_hours, kind="stable"))
