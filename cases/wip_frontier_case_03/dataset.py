"""Model inputs and the datasets and loaders over them.

The feature stage: the collar and parlour readings as exported, next to the collar accelerometer's motion
spectrum (see `motion_shape`); the inputs are prepared once, when a dataset is built, and robust-scaled with
statistics fitted on the training windows."""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

ROBUST = 1.4826        # MAD to sd for a normal distribution
BAND_PREFIX = "acc_"   # the accelerometer's band energies: acc_0_1hz, acc_1_3hz, ...


def band_columns(names):
    return [i for i, n in enumerate(names) if n.startswith(BAND_PREFIX)]


def motion_shape(energies):
    """(n, n_bands) log10 share of each band in the window's total motion energy over the bands.

    How much of the neck's motion reaches the accelerometer depends on how snugly the collar sits (strap
    tension, where the counterweight hangs): a window's band energies differ more than tenfold between cows,
    and change when a collar is refitted. What tells the behaviours apart is how the motion divides over the
    bands (slow head swings while grazing, fast jolts while mounting), so each window's energies are taken
    relative to the window's own total."""
    e = np.asarray(energies, dtype=np.float64)
    return np.log10(e) - np.log10(e.sum(axis=1, keepdims=True))


def model_inputs(table):
    """(n, n_inputs): every reading that is not a band energy as exported, then the motion shape."""
    bands = band_columns(table.feature_names)
    other = [i for i in range(len(table.feature_names)) if i not in bands]
    return np.concatenate([table.features[:, other], motion_shape(table.features[:, bands])], axis=1)


def input_names(table):
    bands = band_columns(table.feature_names)
    return ([n for i, n in enumerate(table.feature_names) if i not in bands]
            + [f"{table.feature_names[i]}_share" for i in bands])


class Scaler:
    """Robust scaling (median and MAD) fitted on the training inputs."""

    def __init__(self, center, spread):
        self.center = np.asarray(center, dtype=np.float32)
        self.spread = np.maximum(np.asarray(spread, dtype=np.float32), 1e-6)

    @classmethod
    def fit(cls, x):
        center = np.median(x, axis=0)
        return cls(center, ROBUST * np.median(np.abs(x - center), axis=0))

    @classmethod
    def fit_table(cls, table):
        return cls.fit(model_inputs(table))

    @property
    def n_inputs(self):
        return len(self.center)

    def __call__(self, x):
        return (x - self.center) / self.spread


class WindowDataset(Dataset):
    """The table's windows as (input, label) pairs; the inputs are scaled once, up front."""

    def __init__(self, table, scaler, transform=None):
        self.window_ids = table.window_ids
        self.x = torch.from_numpy(scaler(model_inputs(table)).astype("float32"))
        self.y = torch.from_numpy(table.labels)
        self.transform = transform

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        x = self.x[i]
        if self.transform is not None:
            x = self.transform(x)
        return x, self.y[i]


def build_train_loader(table, scaler, cfg, seed, transform=None):
    g = torch.Generator().manual_seed(seed)
    return DataLoader(WindowDataset(table, scaler, transform), batch_size=cfg.batch_size, shuffle=True,
                      generator=g, drop_last=True)


def build_eval_loader(table, scaler, batch_size=512):
    return DataLoader(WindowDataset(table, scaler), batch_size=batch_size, shuffle=False)
