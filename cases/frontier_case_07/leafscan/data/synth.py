"""Synthetic stand-in for the greenhouse leaf scans: one reflectance spectrum per leaf.

Each scan comes from one of several greenhouses. A greenhouse has its own spectral tilt (lamps,
camera white balance) and camera noise (g5's replacement camera is noisier), and every leaf its own
vigour, which brightens every band and deepens the disease signature. A condition has a band
pattern and a broadband shift. The condition signatures are fixed, so only the leaves change with
the seed. The labels are the scouts' calls, and the scouts mark some healthy leaves as chlorotic.
"""

import torch

CLASSES = ("healthy", "rust", "mildew", "blight", "chlorosis")
SIGNATURE_SEED = 99
HOUSE_SEED = 98
SENSOR_NOISE = 2.5
CAMERA_NOISE = {5: 1.5}  # relative to SENSOR_NOISE; houses not listed: 1.0
PATTERN = (1.0, 1.0, 1.0, 1.0, 0.4)  # strength of each condition's band pattern
BROADBAND = (0.0, 0.0, 0.0, -0.2, 2.0)  # each condition's shift of every band (log reflectance)
OVERCALLED = 0.12  # share of healthy leaves the scouts record as chlorosis


def condition_signatures(n_bands):
    pattern = torch.randn(len(CLASSES), n_bands, generator=torch.Generator().manual_seed(SIGNATURE_SEED))
    return torch.tensor(PATTERN).unsqueeze(1) * pattern + torch.tensor(BROADBAND).unsqueeze(1)


def house_tilts(n_houses, n_bands):
    g = torch.Generator().manual_seed(HOUSE_SEED)
    slope = 0.8 * torch.rand(n_houses, 1, generator=g) - 0.4
    return slope * torch.linspace(-1.0, 1.0, n_bands)


def camera_noise(n_houses):
    return torch.tensor([CAMERA_NOISE.get(h, 1.0) for h in range(n_houses)]).unsqueeze(1)


def make_scans(n, n_bands, n_houses, seed):
    """(reflectance spectra [n, n_bands] > 0, condition labels [n] as the scouts recorded them,
    greenhouse ids [n])."""
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, len(CLASSES), (n,), generator=g)
    house = torch.randint(0, n_houses, (n,), generator=g)
    vigour = torch.rand(n, 1, generator=g) * 2.0
    noise = torch.randn(n, n_bands, generator=g)
    log_reflectance = (condition_signatures(n_bands)[y] * (0.6 + 0.4 * vigour) + house_tilts(n_houses, n_bands)[house]
                       + SENSOR_NOISE * camera_noise(n_houses)[house] * noise + vigour)
    overcalled = (y == CLASSES.index("healthy")) & (torch.rand(n, generator=g) < OVERCALLED)
    label = torch.where(overcalled, CLASSES.index("chlorosis"), y)
    return torch.exp(0.5 * log_reflectance), label, house
