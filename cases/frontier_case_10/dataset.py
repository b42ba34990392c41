"""Model inputs: each record's spectral shape (relative band power of its band energies in ground motion),
the pick's rise and coda, the derived features (differences between two of its bands, in ground motion), and the
gap since the previous pick anywhere on the network (swarms come in bursts), standardized over the catalog."""

import numpy as np
import torch
from torch.utils.data import Dataset


PICK_COLUMNS = ("rise_s", "coda_s")  # onset to peak, peak to the end of the coda (s)
DERIVED = (  # (feature, band, minus band)
    ("tilt", "band_12", "band_03"),  # high over low band energy, log10
    ("edge", "band_15", "band_12"),
)


def relative_band_power(log_bands):
    """Each record's band energies (log10) as log10 shares of the record's total energy over the bands.

    Records differ in size by orders of magnitude with the event's magnitude and its distance to the
    station; the shares are the size-independent spectral shape: a small nearby event and a large distant
    one look alike."""
    log_bands = np.asarray(log_bands, dtype=np.float64)
    top = log_bands.max(axis=1, keepdims=True)
    total = top + np.log10(np.sum(10.0 ** (log_bands - top), axis=1, keepdims=True))
    return log_bands - total


def derived_features(log_bands, band_names, derived=DERIVED):
    """(n, len(derived)) per-record differences between two of the record's bands (log10, ground motion)."""
    log_bands = np.asarray(log_bands, dtype=np.float64)
    return np.stack([log_bands[:, band_names.index(a)] - log_bands[:, band_names.index(b)]
                     for _, a, b in derived], axis=1)


def network_gaps(t_hours):
    """log10 of the hours since the previous pick on the network, for times in ascending order."""
    gaps = np.diff(t_hours, prepend=t_hours[0] - 1.0)
    return np.log10(np.maximum(gaps, 1e-3))


class RecordDataset(Dataset):
    """The catalog as model inputs. `transform`, if set, is applied to each record's features when the
    record is read (the training augmentation); evaluation reads them as they are."""

    def __init__(self, table, response, transform=None):
        self.record_ids = table.record_ids
        self.stations = table.stations
        self.classes = table.classes
        ground = response(table.bands)
        bands = relative_band_power(ground)
        picks = np.stack([table.column(c).numpy() for c in PICK_COLUMNS], axis=1)
        derived = derived_features(ground, table.band_names)
        x = np.hstack([bands, picks, derived, network_gaps(table.t_hours)[:, None]])
        self.mean = x.mean(axis=0)
        self.std = np.maximum(x.std(axis=0), 1e-6)
        self.x = torch.from_numpy(((x - self.mean) / self.std).astype(np.float32))
        self.y = torch.from_numpy(table.labels)
        self.n_bands = bands.shape[1]
        self.transform = transform

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        x = self.x[i]
        if self.transform is not None:
            x = self.transform(x, self.n_bands)
        return x, self.y[i]
