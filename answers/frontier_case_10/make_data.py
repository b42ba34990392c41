"""frontier_case_10: how data/ was generated (hidden half; not shipped with the case).

    python answers/frontier_case_10/make_data.py   # writes cases/frontier_case_10/data/

Kettle Ridge observatory: six seismic stations, one record per (event, station pick). Each record carries 16
log band energies in raw digitizer counts. The physical level is the counts minus the station's log
sensitivity and its seismometer's f^2 fall-off below the corner (stations.csv: SUM is a broadband instrument at about 5x the gain of the short-period stations,
and NFL's digitizer was swapped on day 95). Rockfalls are mostly picked at SUM and CRT, near the summit
scarp; rockfall and tremor share a broadband shape and differ mainly in level. The analysts' labels flip
rockfall <-> tremor for a share of records (the April double review in review_april.csv is real: a second
analyst's label drawn from the same confusion).

Each pick also carries three columns the station box writes: onset, peak and end, the digitizer's running
sample number (50 samples/s since the box last started; 1.15e9-2.08e9 over the season) at the pick's onset,
its amplitude peak and the end of its coda. Rockfall and tremor have nearly the same spectrum and level; they
differ in rise (onset to peak: a rockfall builds up over 4-8 s, a tremor burst over 2-6 s) and coda (8-14 s
vs 10-16 s); the other classes differ from them and from each other by tens of seconds (LP codas 25-45 s,
noise 1-5 s). float32 spacing at those sample numbers is 128 samples (2.56 s): the round-8 layer B.
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
LEVEL = {"volcano_tectonic": 1.0, "long_period": 0.8, "tremor": 0.25, "rockfall": 0.75, "noise": -0.6}
FLIP = {"rockfall": ("tremor", 0.09), "tremor": ("rockfall", 0.04)}


BAND_HZ = 0.2 * 100.0 ** (np.arange(16) / 15)
CORNER = {st: (1.0 / 120.0 if st == "SUM" else 1.0) for st in STATIONS}


def log_gain(f_hz, corner_hz):
    r2 = (f_hz / corner_hz) ** 2
    return np.log10(r2 / np.sqrt(1.0 + r2 ** 2))


def log_sens(station, day):
    if station == "NFL" and day >= NFL_SWAP_DAY:
        return NFL_AFTER
    return LOG_SENS[station]


def noisy_label(c, rng):
    if c in FLIP and rng.random() < FLIP[c][1]:
        return FLIP[c][0]
    return c


RATE = 50                    # the digitizers' sample rate (Hz)
BOX_START = {"CRT": 1.212e9, "EFL": 1.187e9, "NFL": 1.263e9, "SFL": 1.154e9, "SUM": 1.298e9, "WFL": 1.231e9}
TIMING = {  # (rise s, coda s) ranges: onset to peak, peak to the end of the coda
    "volcano_tectonic": ((0.3, 1.5), (8.0, 16.0)), "long_period": ((0.8, 2.5), (25.0, 45.0)),
    "rockfall": ((4.0, 8.0), (8.0, 14.0)), "tremor": ((2.0, 6.0), (10.0, 16.0)), "noise": ((0.2, 2.0), (1.0, 5.0)),
}


def timing(st, c, t_hours, rng):
    """The pick's rise (onset to peak) and coda (peak to the end of the coda) in seconds, as the box writes
    them (whole samples at 50 Hz). The same random stream as the round-8 sample numbers."""
    (r0, r1), (c0, c1) = TIMING[c]
    rng.integers(0, RATE)
    rise = int(round(rng.uniform(r0, r1) * RATE))
    coda = int(round(rng.uniform(c0, c1) * RATE))
    return rise / RATE, coda / RATE


def main(n=2600, seed=10):
    rng = np.random.default_rng(seed)
    f = np.linspace(0, 1, N_BANDS)
    t_h = np.sort(rng.uniform(0, 180 * 24, size=n))
    recs, times = [], []
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
        counts = bands + log_sens(st, day) + log_gain(BAND_HZ, CORNER[st]) + 6.0
        label = noisy_label(c, rng)
        second = noisy_label(c, rng)
        recs.append((f"KR{i:05d}", st, round(t, 3), label, second, counts))
        times.append(timing(st, c, t, env_rng))
    exports = OUT / "exports"
    exports.mkdir(parents=True, exist_ok=True)
    for old in exports.glob("*.csv"):
        old.unlink()
    header = ["record_id", "station", "t_hours", "label"] + [f"band_{k:02d}" for k in range(N_BANDS)] + ["rise_s", "coda_s"]
    for st in STATIONS:
        with open(exports / f"{st}.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(header)
            for (rid, s, t, label, _, counts), smp in zip(recs, times):
                if s == st:
                    w.writerow([rid, s, f"{t:.3f}", label] + [f"{v:.4f}" for v in counts] + [f"{v:.2f}" for v in smp])
    env_dir = OUT / "envelopes"
    if env_dir.is_dir():
        for old in env_dir.glob("*"):
            old.unlink()
        env_dir.rmdir()
    with open(OUT / "stations.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["station", "from_hours", "log10_counts_per_nm_s", "corner_hz", "instrument"])
        for st in STATIONS:
            inst = "broadband 120 s" if st == "SUM" else "short-period 1 Hz"
            w.writerow([st, "0", f"{LOG_SENS[st]:.2f}", f"{CORNER[st]:.5f}", inst])
        w.writerow(["NFL", f"{NFL_SWAP_DAY * 24}", f"{NFL_AFTER:.2f}", f"{CORNER['NFL']:.5f}", "short-period 1 Hz (digitizer swap)"])
    with open(OUT / "review_april.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["record_id", "analyst_a", "analyst_b"])
        for rid, _, t, label, second, _ in recs:
            if 90 * 24 <= t < 120 * 24:
                w.writerow([rid, label, second])
    print(f"wrote {n} records to {exports}")


if __name__ == "__main__":
    main()
