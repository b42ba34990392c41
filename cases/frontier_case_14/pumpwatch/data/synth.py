"""Synthetic stand-in for the plant's vibration archive export.

The real recordings stay on the plant network; this module renders rows with the same interface as
the export: one accelerometer channel per recording (acceleration in m/s^2, as the loggers write it)
at its logger's native rate, the pump, the logger and the condition the operators logged.
"""

from dataclasses import dataclass

import numpy as np

CLASSES = ("normal", "imbalance", "misalignment", "bearing", "cavitation")
DURATION_S = 2.0


@dataclass(frozen=True)
class Logger:
    name: str
    rate: int          # samples per second
    bandwidth: float   # analog front-end cutoff, Hz
    share: float       # fraction of the archive recorded with it


LOGGERS = (
    Logger("vx1", 1000, 400.0, 0.6),
    Logger("vx2", 2560, 1150.0, 0.4),
)

FLOW_BAND = (580.0, 880.0)
CAVITATION_BAND = (140.0, 420.0)
CAVITATION_LEVEL = 2.0
FLOW_LEVEL = (0.12, 0.5)       # median and log-spread of each recording's flow hiss
NOISE_FLOOR = 0.25
SENSOR_BAND = 450.0     # accelerometer's flat response
KNOCK_LEVEL = (0.2, 0.4)       # peak of a bearing defect's knocks at the race resonance
SPALLED_SHARE = 0.45           # bearing faults far enough along to knock the casing
CASING_BAND = (160.0, 230.0)
CASING_LEVEL = (7.0, 11.0)     # RMS of the casing's response while the spall is loaded
LOADED_SPAN = (0.4, 0.9)       # seconds of a recording in which the spall is loaded


@dataclass
class Recording:
    wave: np.ndarray
    rate: int
    logger: str
    label: int
    pump: int


def band_noise(rng, n, length, rate, lo, hi, level):
    """Gaussian noise limited to [lo, hi] Hz, scaled to ``level`` RMS (one row per recording)."""
    spec = np.fft.rfft(rng.standard_normal((n, length)), axis=1)
    freqs = np.fft.rfftfreq(length, 1.0 / rate)
    spec[:, (freqs < lo) | (freqs > hi)] = 0.0
    out = np.fft.irfft(spec, n=length, axis=1)
    out /= out.std(axis=1, keepdims=True) + 1e-12
    return out * np.asarray(level).reshape(-1, 1)


def _render(rng, logger, labels):
    n = len(labels)
    length = int(round(DURATION_S * logger.rate))
    t = np.arange(length) / logger.rate
    f0 = rng.uniform(22.0, 30.0, size=(n, 1))
    ph = rng.uniform(0.0, 2 * np.pi, size=(n, 4))
    amp1 = np.where(labels == 1, rng.uniform(1.2, 2.0, n), rng.uniform(0.6, 1.4, n))[:, None]
    amp2 = np.where(labels == 2, rng.uniform(0.45, 0.9, n), rng.uniform(0.1, 0.55, n))[:, None]
    amp3 = np.where(labels == 2, rng.uniform(0.1, 0.4, n), 0.0)[:, None]
    wave = (amp1 * np.sin(2 * np.pi * f0 * t + ph[:, :1])
            + amp2 * np.sin(2 * np.pi * 2 * f0 * t + ph[:, 1:2])
            + amp3 * np.sin(2 * np.pi * 3 * f0 * t + ph[:, 2:3]))

    bearing = labels == 3
    if bearing.any():
        k = int(bearing.sum())
        carrier = rng.uniform(250.0, 330.0, size=(k, 1))
        defect = 3.57 * f0[bearing]
        cycle = (t[None, :] * defect + ph[bearing, 3:4] / (2 * np.pi)) % 1.0
        envelope = np.exp(-cycle / 0.12)
        # a spalled race knocks the casing instead, hard, while the defect passes the loaded zone
        spalled = rng.random((k, 1)) < SPALLED_SHARE
        span = rng.uniform(*LOADED_SPAN, size=(k, 1))
        onset = rng.uniform(0.0, 1.0, size=(k, 1)) * (DURATION_S - span)
        loaded = spalled & (t[None, :] >= onset) & (t[None, :] < onset + span)
        wave[bearing] += (rng.uniform(*KNOCK_LEVEL, (k, 1)) * ~loaded * envelope
                          * np.sin(2 * np.pi * carrier * t))
        wave[bearing] += loaded * band_noise(rng, k, length, logger.rate, *CASING_BAND,
                                             rng.uniform(*CASING_LEVEL, k))

    cav = labels == 4
    if cav.any():
        wave[cav] += band_noise(rng, int(cav.sum()), length, logger.rate, *CAVITATION_BAND,
                                CAVITATION_LEVEL * rng.uniform(0.6, 1.4, int(cav.sum())))

    flow = FLOW_LEVEL[0] * np.exp(FLOW_LEVEL[1] * rng.standard_normal(n))
    hi = min(FLOW_BAND[1], logger.bandwidth)
    if FLOW_BAND[0] < hi:
        wave += band_noise(rng, n, length, logger.rate, FLOW_BAND[0], hi, flow)
    wave += band_noise(rng, n, length, logger.rate, 0.0, min(logger.bandwidth, SENSOR_BAND), np.full(n, NOISE_FLOOR))
    return wave.astype(np.float32)


CONDITION_MIX = (0.3, 0.175, 0.175, 0.175, 0.175)


def generate(n, seed):
    """``n`` rows of the export: the archive's mix of conditions, pumps and loggers."""
    rng = np.random.default_rng(seed)
    labels = rng.choice(len(CLASSES), size=n, p=CONDITION_MIX)
    pumps = rng.integers(0, 12, size=n)
    which = rng.choice(len(LOGGERS), size=n, p=[lg.share for lg in LOGGERS])
    out = [None] * n
    for i, logger in enumerate(LOGGERS):
        idx = np.flatnonzero(which == i)
        if len(idx) == 0:
            continue
        waves = _render(rng, logger, labels[idx])
        for row, j in enumerate(idx):
            out[j] = Recording(waves[row], logger.rate, logger.name, int(labels[j]), int(pumps[j]))
    return out
