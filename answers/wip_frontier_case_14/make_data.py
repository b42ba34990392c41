"""frontier_case_14: how the committed export (cases/frontier_case_14/data/) was generated. MLDB-CANARY-frontier_case_14-63650fbbfce09824

Run: python answers/frontier_case_14/make_data.py [out_dir]   (default: the case's data/ folder)

Five conditions. The pumps are driven by two-pole induction motors on 50 Hz mains (running speed about
49.5 Hz); a sound pump shows the running-speed line with a 2x line at 0.25-0.5 of it. Imbalance raises the
running-speed line alone (2.2-3.2x; the harmonics stay), so its SHAPE is distinct (1x dominance). Misalignment
raises the 2x line (0.25-0.65 of the 1x: it overlaps a sound pump's) with a small 3x (0-0.15) and, in this
fleet (stiff couplings), loads the whole running-speed pattern by 1.4-2.0x: a misaligned pump whose 2x ratio
is in the sound range and whose 3x is small looks like a sound one in shape and is told from it by the level.
Cavitation adds broadband noise at 140-420 Hz, an outer-race bearing defect adds short impacts at the
ball-pass rate.

The two logger generations read the casing's vibration with different gains (vx1's sensors on their
mounting pads read 0.6x; vx2 1.0x): true and checkable (the median RMS per logger; the capture sheet's
full_scale per logger). The case's pipeline takes every recording to unit RMS (dsp.unit_rms), which removes
the gain AND the level that tells the shape-ambiguous misaligned pumps from sound ones. A per-logger gain
(each generation's median RMS) or the log RMS kept as an input fixes the pair; the model can tell the
generations apart by their spectra (vx1's floor reaches 480 Hz, vx2's front end stops at 400 Hz).

The re-check sheet: a technician re-checked a random 300 captures; they give 16% of the misalignment
captures normal and 6% of the normal captures misalignment (RECHECK), the README's (true) excuse.
"""

import csv
import sys
from pathlib import Path

from dataclasses import dataclass

import numpy as np

CLASSES = ("normal", "imbalance", "misalignment", "bearing", "cavitation")
DURATION_S = (1.2, 2.4)        # the loggers capture between these lengths
INTERRUPTED = (0.02, (0.3, 0.9))   # share of captures cut short by a logger restart, and their lengths
RANGES = (1.0, 2.0, 5.0, 10.0, 20.0)  # the loggers' full-scale settings, m/s^2
HEADROOM = 1.25                 # auto-ranging keeps the capture's peak this far below full scale
FULL_COUNTS = 32767
YEARS = ((2025, 0.58), (2026, 0.42))   # the export's years and their share of the captures


@dataclass(frozen=True)
class Logger:
    name: str
    rate: int          # samples per second
    bandwidth: float   # analog front-end cutoff, Hz
    floor: float       # RMS of the front end's noise, m/s^2
    mount: float       # corner of the sensor mount's roll-off, Hz (0: flat)
    gain: float        # what the sensor on its mount reads of the casing's vibration
    pumps: tuple       # pumps fitted with this generation


LOGGERS = (
    Logger("vx1", 2560, 1150.0, 0.25, 900.0, 0.6, (0, 1, 2, 3, 4)),
    Logger("vx2", 1000, 400.0, 0.22, 0.0, 1.0, (5, 6, 7, 8, 9, 10, 11)),
)

FLOW_BAND = (580.0, 880.0)
CAVITATION_BAND = (140.0, 420.0)
CAVITATION_LEVEL = 0.8
MAINS_HZ = 50.0                # the pumps are driven by two-pole induction motors on the mains
RATED_SLIP = 0.0134            # the motors' slip at rated torque
DUTY = (0.763, 0.004)          # torque at the plant's duty point, share of rated (mean, spread)
CAVITATING_TORQUE = 0.96       # a cavitating pump moves less water and needs this share of its torque
FLOW_LEVEL = (0.12, 0.5)       # median and log-spread of each recording's flow hiss
SENSOR_BAND = 480.0            # accelerometer's flat response
FLOOR_SPREAD = 0.25            # log-spread of the broadband floor between recordings
RUNNING = (0.8, 1.2)           # a sound pump's running-speed line, m/s^2 (peak)
SOUND_2X = (0.25, 0.5)         # a sound pump's 2x line, share of its running-speed line
IMBALANCE = (2.2, 3.2)         # an imbalanced rotor's running-speed line, multiple of a sound one's
MISALIGNED_2X = (0.25, 0.65)   # a misaligned coupling's 2x line, share of the running-speed line
MISALIGNED_3X = (0.0, 0.15)    # and its 3x line
COUPLING_LOAD = (1.4, 2.0)     # a misaligned coupling's running-speed pattern, multiple of a sound one's
KNOCK_LEVEL = (2.0, 6.0)       # peak of a bearing defect's impacts, m/s^2
IMPACT_TAU = (0.0002, 0.0006)  # decay of one impact, s
BPFO = 3.05                    # outer-race ball-pass frequency, multiple of the running speed
INTERMITTENT = (0.2, 0.6)      # per pump age: share of bearing faults that knock only while loaded
LOADED_SPAN = (0.3, 0.9)       # seconds of such a recording in which the defect knocks
# condition mix per pump: the pumps of the first generation are older and wear their bearings
CONDITION_MIX = ((0.3, 0.19, 0.19, 0.12, 0.2), (0.22, 0.15, 0.15, 0.33, 0.15))


@dataclass
class Recording:
    wave: np.ndarray
    rate: int
    logger: str
    label: int
    pump: int
    speed: float = 0.0
    phase: float = 0.0
    seconds: float = 0.0


def band_noise(rng, n, length, rate, lo, hi, level):
    """Gaussian noise limited to [lo, hi] Hz, scaled to ``level`` RMS (one row per recording)."""
    spec = np.fft.rfft(rng.standard_normal((n, length)), axis=1)
    freqs = np.fft.rfftfreq(length, 1.0 / rate)
    spec[:, (freqs < lo) | (freqs > hi)] = 0.0
    out = np.fft.irfft(spec, n=length, axis=1)
    out /= out.std(axis=1, keepdims=True) + 1e-12
    return out * np.asarray(level).reshape(-1, 1)


def mount_response(wave, rate, corner):
    """The sensor mount's first-order roll-off above ``corner`` Hz (no change for a flat mount)."""
    if corner <= 0:
        return wave
    spec = np.fft.rfft(wave, axis=1)
    freqs = np.fft.rfftfreq(wave.shape[1], 1.0 / rate)
    return np.fft.irfft(spec / np.sqrt(1.0 + (freqs / corner) ** 2), n=wave.shape[1], axis=1)


def _render(rng, logger, labels, old):
    n = len(labels)
    length = int(round(DURATION_S[1] * logger.rate))
    t = np.arange(length) / logger.rate
    torque = rng.normal(*DUTY, size=(n, 1)) * np.where(labels == 4, CAVITATING_TORQUE, 1.0)[:, None]
    f0 = MAINS_HZ * (1.0 - RATED_SLIP * torque)
    ph = rng.uniform(0.0, 2 * np.pi, size=(n, 4))
    amp1 = rng.uniform(*RUNNING, n)[:, None]
    # the 2x and 3x lines relative to the running-speed line: a misaligned coupling raises them
    amp2 = amp1 * np.where(labels == 2, rng.uniform(*MISALIGNED_2X, n), rng.uniform(*SOUND_2X, n))[:, None]
    amp3 = amp1 * np.where(labels == 2, rng.uniform(*MISALIGNED_3X, n), 0.0)[:, None]
    # imbalance: a stronger running-speed line on its own (the harmonics stay where they were)
    amp1 = amp1 * np.where(labels == 1, rng.uniform(*IMBALANCE, n), 1.0)[:, None]
    # misalignment: the coupling's reaction loads the whole running-speed pattern (this fleet's couplings)
    load = np.where(labels == 2, rng.uniform(*COUPLING_LOAD, n), 1.0)[:, None]
    amp1, amp2, amp3 = amp1 * load, amp2 * load, amp3 * load
    wave = (amp1 * np.sin(2 * np.pi * f0 * t + ph[:, :1])
            + amp2 * np.sin(2 * np.pi * 2 * f0 * t + ph[:, 1:2])
            + amp3 * np.sin(2 * np.pi * 3 * f0 * t + ph[:, 2:3]))

    bearing = labels == 3
    if bearing.any():
        k = int(bearing.sum())
        defect = BPFO * f0[bearing]
        cycle = (t[None, :] * defect + ph[bearing, 3:4] / (2 * np.pi)) % 1.0
        # each ball's pass over the spall is a short one-sided impact (decay IMPACT_TAU seconds)
        tau = rng.uniform(*IMPACT_TAU, size=(k, 1))
        impacts = np.exp(-(cycle / defect) / tau)
        # an early defect knocks only while it passes through the loaded zone
        share = np.where(old[bearing], INTERMITTENT[1], INTERMITTENT[0])[:, None]
        intermittent = rng.random((k, 1)) < share
        span = rng.uniform(*LOADED_SPAN, size=(k, 1))
        onset = rng.uniform(0.0, 1.0, size=(k, 1)) * (DURATION_S[0] - span)
        on = ~intermittent | ((t[None, :] >= onset) & (t[None, :] < onset + span))
        wave[bearing] += rng.uniform(*KNOCK_LEVEL, (k, 1)) * on * impacts

    cav = labels == 4
    if cav.any():
        k = int(cav.sum())
        level = CAVITATION_LEVEL * rng.uniform(0.6, 1.4, k)
        wave[cav] += band_noise(rng, k, length, logger.rate, *CAVITATION_BAND, level)

    flow = FLOW_LEVEL[0] * np.exp(FLOW_LEVEL[1] * rng.standard_normal(n))
    hi = min(FLOW_BAND[1], logger.bandwidth)
    if FLOW_BAND[0] < hi:
        wave += band_noise(rng, n, length, logger.rate, FLOW_BAND[0], hi, flow)
    floor = logger.floor * np.exp(FLOOR_SPREAD * rng.standard_normal(n))
    wave += band_noise(rng, n, length, logger.rate, 0.0, min(logger.bandwidth, SENSOR_BAND), floor)
    wave = mount_response(wave, logger.rate, logger.mount) * logger.gain
    return wave.astype(np.float32), f0[:, 0], ph[:, 0]


def durations(rng, n):
    """Length of each capture in seconds; a few were interrupted by a logger restart."""
    seconds = rng.uniform(*DURATION_S, size=n)
    cut = rng.random(n) < INTERRUPTED[0]
    seconds[cut] = rng.uniform(*INTERRUPTED[1], size=int(cut.sum()))
    return seconds


def generate(n, seed):
    """``n`` rows of the export: the archive's pumps, their loggers and their conditions."""
    rng = np.random.default_rng(seed)
    pumps = rng.integers(0, 12, size=n)
    which = np.array([next(i for i, lg in enumerate(LOGGERS) if p in lg.pumps) for p in pumps])
    old = which == 0
    labels = np.empty(n, dtype=np.int64)
    for flag, mix in ((False, CONDITION_MIX[0]), (True, CONDITION_MIX[1])):
        labels[old == flag] = rng.choice(len(CLASSES), size=int((old == flag).sum()), p=mix)
    seconds = durations(rng, n)
    out = [None] * n
    for i, logger in enumerate(LOGGERS):
        idx = np.flatnonzero(which == i)
        if len(idx) == 0:
            continue
        waves, f0, ph = _render(rng, logger, labels[idx], old[idx])
        for row, j in enumerate(idx):
            keep = int(round(seconds[j] * logger.rate))
            out[j] = Recording(waves[row, :keep].copy(), logger.rate, logger.name, int(labels[j]), int(pumps[j]),
                               float(f0[row]), float(ph[row]), keep / logger.rate)
    return out


@dataclass
class Capture:
    capture: int        # the logger network's capture number (counted from 1 each year)
    counts: np.ndarray  # int16
    rate: int
    logger: str
    pump: int
    label: int


def full_scale(wave):
    """The smallest range that keeps the capture's peak below full scale with the headroom."""
    peak = float(np.abs(wave).max()) * HEADROOM
    return next((fs for fs in RANGES if peak <= fs), RANGES[-1])


RECHECK = (300, 0.16, 0.06)    # re-checked captures; P(other label) for misalignment, for normal


def export(n, seed):
    """The archive export of ``n`` recordings: one file per year, in capture order."""
    recs = generate(n, seed)
    rng = np.random.default_rng([seed, 31337])
    year = np.where(rng.random(n) < YEARS[0][1], YEARS[0][0], YEARS[1][0])
    files = []
    for y, _ in YEARS:
        captures, sheet = [], []
        for number, j in enumerate(np.flatnonzero(year == y), start=1):
            r = recs[j]
            fs = full_scale(r.wave)
            counts = np.clip(np.round(r.wave / fs * FULL_COUNTS), -FULL_COUNTS, FULL_COUNTS).astype(np.int16)
            captures.append(Capture(number, counts, r.rate, r.logger, r.pump, r.label))
            sheet.append({"capture": number, "full_scale": fs})
        files.append({"year": int(y), "captures": captures, "ranges": sheet})
    return files


def recheck(files, seed):
    """A random subset re-labelled by a second technician (the pair misalignment/normal disagrees)."""
    rng = np.random.default_rng([seed, 4242])
    rows = [(f["year"], c) for f in files for c in f["captures"]]
    pick = np.sort(rng.choice(len(rows), RECHECK[0], replace=False))
    out = []
    for i in pick:
        y, c = rows[i]
        other = c.label
        if c.label == 2 and rng.random() < RECHECK[1]:
            other = 0
        elif c.label == 0 and rng.random() < RECHECK[2]:
            other = 2
        out.append({"year": y, "capture": c.capture, "logged": CLASSES[c.label], "rechecked": CLASSES[other]})
    return out


N, SEED = 1800, 14


def write(out_dir, n=N, seed=SEED):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = export(n, seed)
    for f in files:
        caps = f["captures"]
        lengths = np.array([len(c.counts) for c in caps])
        np.savez_compressed(out / f"captures_{f['year']}.npz",
                            capture=np.array([c.capture for c in caps], dtype=np.int64),
                            rate=np.array([c.rate for c in caps], dtype=np.int64),
                            logger=np.array([c.logger for c in caps]),
                            pump=np.array([c.pump for c in caps], dtype=np.int64),
                            label=np.array([c.label for c in caps], dtype=np.int64),
                            length=lengths, counts=np.concatenate([c.counts for c in caps]))
        with open(out / f"sheet_{f['year']}.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["capture", "full_scale", "logger"])
            for row, c in zip(f["ranges"], caps):
                w.writerow([row["capture"], row["full_scale"], c.logger])
    with open(out / "recheck.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["year", "capture", "logged", "rechecked"])
        for row in recheck(files, seed):
            w.writerow([row["year"], row["capture"], row["logged"], row["rechecked"]])
    return files


if __name__ == "__main__":
    default = Path(__file__).resolve().parents[2] / "cases" / "frontier_case_14" / "data"
    write(sys.argv[1] if len(sys.argv) > 1 else default)
