"""The impact spectrum as model inputs.

How hard a wheel hits the rail depends on the pass as much as on the wheel: a loaded wagon at line speed
puts far more energy into every band than the same wagon running back empty and slow (the twelve band
levels of a pass rise and fall together with speed and axle load; compare the passes' mean band level with
`speed_kmh` and `axle_load_t`). The band levels (dB) are therefore given to the model relative to the pass's
own mean band level, the log-ratio of each band's energy to the geometric mean of the twelve: the
speed- and load-independent shape of the spectrum, so a fast loaded pass and a slow empty one look alike.
"""

import torch

BAND_PREFIX = "band_"


def band_columns(feature_names):
    return [i for i, n in enumerate(feature_names) if n.startswith(BAND_PREFIX)]


def relative_levels(features, feature_names):
    """A copy of `features` (n, n_features) whose band columns are taken relative to each row's mean band
    level; the other columns are unchanged."""
    x = features.clone()
    idx = torch.as_tensor(band_columns(feature_names))
    bands = x[:, idx]
    x[:, idx] = bands - bands.mean(dim=1, keepdim=True)
    return x
