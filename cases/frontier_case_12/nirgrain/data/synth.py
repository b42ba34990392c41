"""Synthetic stand-in for the grain-lot scans: one near-infrared absorbance spectrum per scan.

A variety's spectrum is a sum of broad absorption bands (starch, protein, water) whose depths
differ a little between varieties. Each scan comes from one of several bench instruments with
its own baseline offset and slope (lamp ageing, detector temperature), and each lot has its own
moisture, which deepens the water bands and scales the whole spectrum. The varieties' band
depths and the instruments are fixed; only the scans change with the seed.
"""

import math

import torch

CLASSES = ("bread", "durum", "spelt", "emmer", "einkorn")
SIGNATURE_SEED = 71
INSTRUMENT_SEED = 72
# serial numbers of the lab's bench instruments, as the scan files record them
INSTRUMENT_SERIALS = (2207, 1931, 3054, 1488, 2716)
# (centre, width) of the absorption bands on a 0..1 wavelength axis
BANDS = ((0.12, 0.05), (0.24, 0.04), (0.37, 0.06), (0.48, 0.03), (0.61, 0.05), (0.73, 0.04), (0.86, 0.06))
WATER_BANDS = (2, 5)
# spread of each variety's intake campaign over the season (fraction of the season, one sd)
CAMPAIGN_WIDTH = 0.03


def wavelength_axis(n_wavelengths):
    return torch.linspace(0.0, 1.0, n_wavelengths)


def band_shapes(n_wavelengths):
    """[n_bands, n_wavelengths] unit-depth Gaussian absorption bands."""
    axis = wavelength_axis(n_wavelengths)
    return torch.stack([torch.exp(-0.5 * ((axis - c) / w) ** 2) for c, w in BANDS])


def class_depths():
    """[n_classes, n_bands]: a shared depth profile plus a small per-variety difference."""
    g = torch.Generator().manual_seed(SIGNATURE_SEED)
    shared = 0.5 + torch.rand(len(BANDS), generator=g)
    return shared + 0.25 * torch.randn(len(CLASSES), len(BANDS), generator=g)


def instrument_baselines(n_instruments, n_wavelengths):
    """[n_instruments, n_wavelengths]: an offset and a slope per instrument."""
    g = torch.Generator().manual_seed(INSTRUMENT_SEED)
    offset = 0.6 * torch.rand(n_instruments, 1, generator=g) - 0.3
    slope = 0.8 * torch.rand(n_instruments, 1, generator=g) - 0.4
    return offset + slope * (wavelength_axis(n_wavelengths) - 0.5)


def intake_varieties(n, generator):
    """Variety of each lot in intake order: the varieties are harvested and delivered one after
    another, variety k's lots around season time (k + 0.5) / n_classes, the campaigns overlapping."""
    season = (torch.arange(n) + 0.5) / n
    centres = (torch.arange(len(CLASSES)) + 0.5) / len(CLASSES)
    weights = torch.softmax(-0.5 * ((season[:, None] - centres) / CAMPAIGN_WIDTH) ** 2, dim=1)
    return torch.multinomial(weights, 1, generator=generator).squeeze(1)


def make_recordings(n, n_wavelengths, n_instruments, seed):
    """(reflectance spectra [n, n_wavelengths] in (0, 1], variety labels [n], instrument serial numbers [n])."""
    g = torch.Generator().manual_seed(seed)
    y = intake_varieties(n, g)
    instrument = torch.randint(0, n_instruments, (n,), generator=g)
    moisture = torch.rand(n, 1, generator=g)
    depths = class_depths()[y] * (0.8 + 0.4 * moisture)
    depths[:, list(WATER_BANDS)] += 0.6 * moisture
    noise = torch.randn(n, n_wavelengths, generator=g)
    absorbance = (depths @ band_shapes(n_wavelengths) + instrument_baselines(n_instruments, n_wavelengths)[instrument]
                  + 0.4 * noise + 0.5 * moisture)
    serials = torch.tensor(INSTRUMENT_SERIALS[:n_instruments])[instrument]
    return torch.exp(-absorbance * math.log(10.0) / 4.0), y, serials
