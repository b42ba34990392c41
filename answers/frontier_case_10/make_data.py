"""frontier_case_10: how data/ was generated (hidden half; not shipped with the case).

    python answers/frontier_case_10/make_data.py   # writes cases/frontier_case_10/data/

Kettle Ridge observatory: six seismic stations, one record per (event, station pick). Each record carries 16
log band energies in raw digitizer counts. The physical level is the counts minus the station's log
sensitivity (stations.csv: SUM is a broadband instrument at about 5x the gain of the short-period stations,
and NFL's digitizer was swapped on day 95). Rockfalls are mostly picked at SUM and CRT, near the summit
scarp; rockfall and tremor share a broadband shape and differ mainly in level. The analysts' labels flip
rockfall <-> tremor for a share of records (the April double review in review_april.csv is real: a second
analyst's label drawn from the same confusion).

Each pick also has a 24 s amplitude envelope (log10, relative to its peak) written by the station's acquisition
box at its own rate (short-period boxes 2 samples/s, SUM's broadband box 2.5 samples/s) in packets of 5
samples, one row per sample: data/envelopes/<station>.csv (record_id, packet, t_s, log_env). Rockfall and
tremor have nearly the same spectrum and level; their envelopes differ (a rockfall builds up and decays, a
tremor is sustained). SUM's box re-sends a few packets of most records after the rest of the record, so in its
file those rows come last (their packet numbers and time stamps are right). SUM is also the noisier station
(a higher envelope noise floor), a true fact.
"""

import csv
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "cases" / "frontier_case_10" / "data"
CLASSES = ("volcano_tectonic", "long_period", "tremor", "rockfall", "noise")
PRIOR = np.array([0.25, 0.22, 0.20, 0.15, 0.18])
STATIONS = ("CRT", "EFL", "NFL", "SFL", "SUM", "WFL")
LOG_SENS = {"CRT": 0.10, "EFL": -0.10, "NFL": 0.0, "SFL": 0.15, "SUM": 1.60, "WFL": -0.05}
NFL_SWAP_DAY, NFL_AFTER = 95, 0.90
STATION_P = {  # which station a class's records come from
    "rockfall": [0.25, 0.04, 0.04, 0.04, 0.59, 0.04],
}
DEFAULT_P = [0.17, 0.17, 0.17, 0.17, 0.15, 0.17]
N_BANDS = 16
SHAPE = {  # (centre, width) of the spectral bump on a 0-1 log-frequency axis
    "volcano_tectonic": (0.64, 0.24), "long_period": (0.30, 0.18), "tremor": (0.44, 0.32),
    "rockfall": (0.46, 0.34), "noise": (0.60, 0.90),
}
LEVEL = {"volcano_tectonic": 1.0, "long_period": 0.8, "tremor": 0.35, "rockfall": 0.55, "noise": -0.6}
FLIP = {"rockfall": ("tremor", 0.09), "tremor": ("rockfall", 0.04)}


def log_sens(station, day):
    if station == "NFL" and day >= NFL_SWAP_DAY:
        return NFL_AFTER
    return LOG_SENS[station]


def noisy_label(c, rng):
    if c in FLIP and rng.random() < FLIP[c][1]:
        return FLIP[c][0]
    return c


RATE = 2                     # samples/s of the boxes' amplitude channel
PRE_S, BUFFER_S = 120, 240     # each pick's buffer: 120 s before the pick, 120 s from it
ENV_NOISE = 0.10
OFFSET = {"CRT": 31800.0, "EFL": 33600.0, "NFL": 27400.0, "SFL": 34100.0, "SUM": 38700.0, "WFL": 32200.0}
BG_NOISE = 25.0
PEAK = {"volcano_tectonic": (3.4, 4.4), "long_period": (3.2, 4.2), "tremor": (2.0, 3.0), "rockfall": (2.0, 3.0),
        "noise": (1.9, 2.6)}


def envelope(c, t, rng):
    """log10 amplitude relative to the peak at times t (s after the pick)."""
    if c == "volcano_tectonic":
        tp, tau = rng.uniform(0.3, 1.0), rng.uniform(1.5, 3.0)
    elif c == "long_period":
        tp, tau = rng.uniform(0.8, 2.0), rng.uniform(3.5, 6.0)
    elif c == "rockfall":
        tp, tau = rng.uniform(3.0, 7.0), rng.uniform(3.0, 6.0)
    if c in ("volcano_tectonic", "long_period", "rockfall"):
        rise = np.log10(np.clip(t / tp, 0.05, 1.0)) * 0.8
        decay = -0.4343 * np.maximum(t - tp, 0.0) / tau
        return np.maximum(rise + decay, -2.5)
    if c == "tremor":
        ph, per = rng.uniform(0, 2 * np.pi), rng.uniform(5, 12)
        return -0.25 + 0.12 * np.sin(2 * np.pi * t / per + ph) - 0.004 * t
    return -0.5 + 0.05 * np.sin(t + rng.uniform(0, 6))


def amplitude_buffer(st, c, rng):
    """The station box's amplitude channel (counts, DC offset included) around one pick."""
    n = BUFFER_S * RATE
    t = (np.arange(n) - PRE_S * RATE) / RATE
    x = OFFSET[st] + rng.normal(0, BG_NOISE, n)
    after = t >= 0
    lo, hi = PEAK[c]
    env = envelope(c, t[after], rng) + rng.normal(0, ENV_NOISE, after.sum())
    x[after] += 10 ** (rng.uniform(lo, hi) + env)
    return x.astype(np.float32)


def main(n=2600, seed=10):
    rng = np.random.default_rng(seed)
    f = np.linspace(0, 1, N_BANDS)
    t_h = np.sort(rng.uniform(0, 180 * 24, size=n))
    recs, env_rows = [], []
    env_rng = np.random.default_rng(seed + 1)
    for i, t in enumerate(t_h):
        c = CLASSES[rng.choice(len(CLASSES), p=PRIOR)]
        st = STATIONS[rng.choice(len(STATIONS), p=STATION_P.get(c, DEFAULT_P))]
        centre, width = SHAPE[c]
        shape = 2.0 * np.exp(-0.5 * ((f - centre - rng.normal(0, 0.05)) / width) ** 2)
        level = LEVEL[c] + rng.normal(0, 0.45)
        tilt = rng.normal(0, 0.35) * (f - 0.5)
        bands = shape + level + tilt + rng.normal(0, 0.60, N_BANDS)
        day = t / 24.0
        counts = bands + log_sens(st, day) + 6.0
        label = noisy_label(c, rng)
        second = noisy_label(c, rng)
        recs.append((f"KR{i:05d}", st, round(t, 3), label, second, counts))
        env_rows.append(amplitude_buffer(st, c, env_rng))
    exports = OUT / "exports"
    exports.mkdir(parents=True, exist_ok=True)
    for old in exports.glob("*.csv"):
        old.unlink()
    header = ["record_id", "station", "t_hours", "label"] + [f"band_{k:02d}" for k in range(N_BANDS)]
    for st in STATIONS:
        with open(exports / f"{st}.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(header)
            for rid, s, t, label, _, counts in recs:
                if s == st:
                    w.writerow([rid, s, f"{t:.3f}", label] + [f"{v:.4f}" for v in counts])
    env_dir = OUT / "envelopes"
    env_dir.mkdir(parents=True, exist_ok=True)
    for old in env_dir.glob("*"):
        old.unlink()
    for st in STATIONS:
        np.save(env_dir / f"{st}.npy", np.concatenate([x for (rid, s, *_), x in zip(recs, env_rows) if s == st]))
    with open(OUT / "stations.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["station", "from_hours", "log10_counts_per_nm_s", "instrument"])
        for st in STATIONS:
            inst = "broadband 120 s" if st == "SUM" else "short-period 1 Hz"
            w.writerow([st, "0", f"{LOG_SENS[st]:.2f}", inst])
        w.writerow(["NFL", f"{NFL_SWAP_DAY * 24}", f"{NFL_AFTER:.2f}", "short-period 1 Hz (digitizer swap)"])
    with open(OUT / "review_april.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["record_id", "analyst_a", "analyst_b"])
        for rid, _, t, label, second, _ in recs:
            if 90 * 24 <= t < 120 * 24:
                w.writerow([rid, label, second])
    print(f"wrote {n} records to {exports}")


if __name__ == "__main__":
    main()
