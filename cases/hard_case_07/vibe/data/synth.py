"""Synthetic stand-in for the test-rig recordings: one power spectrum per window.

Each window comes from one of several machines. A machine has its own spectral tilt (mounting,
sensor placement) and runs at a varying load that scales every band. The fault classes share
fixed spectral signatures, so only the windows change with the seed.
"""

import torch

CLASSES = ("healthy", "inner_race", "outer_race", "ball")
SIGNATURE_SEED = 99
MACHINE_SEED = 98


def class_signatures(n_bands):
    return torch.randn(len(CLASSES), n_bands, generator=torch.Generator().manual_seed(SIGNATURE_SEED))


def machine_tilts(n_machines, n_bands):
    g = torch.Generator().manual_seed(MACHINE_SEED)
    slope = 0.8 * torch.rand(n_machines, 1, generator=g) - 0.4
    return slope * torch.linspace(-1.0, 1.0, n_bands)


def make_recordings(n, n_bands, n_machines, seed):
    """(power spectra [n, n_bands] > 0, fault labels [n], machine ids [n])."""
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, len(CLASSES), (n,), generator=g)
    machine = torch.randint(0, n_machines, (n,), generator=g)
    load = torch.rand(n, 1, generator=g) * 2.0
    noise = torch.randn(n, n_bands, generator=g)
    log_power = (class_signatures(n_bands)[y] * (0.6 + 0.4 * load) + machine_tilts(n_machines, n_bands)[machine]
                 + 2.2 * noise + load)
    return torch.exp(0.5 * log_power), y, machine
