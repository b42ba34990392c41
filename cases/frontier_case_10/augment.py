"""Training augmentation on standardized record features: per-band noise, a level shift shared by the
record's bands, a random spectral slope, and noise on the derived features (which follow the bands).
The gap feature (the last one) is left alone."""

import torch


class BandJitter:
    def __init__(self, band_noise=0.30, level_shift=0.10, tilt=0.15, derived_noise=0.10):
        self.band_noise = band_noise
        self.level_shift = level_shift
        self.tilt = tilt
        self.derived_noise = derived_noise

    def __call__(self, x, n_bands):
        x = x.clone()
        ramp = torch.linspace(-1.0, 1.0, n_bands)
        r = torch.randn(x.shape[0] + 1)
        x[:n_bands] += self.band_noise * r[:n_bands] + self.level_shift * r[n_bands] + self.tilt * r[n_bands + 1] * ramp
        x[n_bands:-1] += self.derived_noise * r[n_bands + 2:]
        return x

    def __repr__(self):
        return (f"BandJitter(noise={self.band_noise}, level={self.level_shift}, tilt={self.tilt}, "
                f"derived={self.derived_noise})")
