"""How frontier_case_09's data were generated (run from the repository root; writes cases/frontier_case_09/data/).

Magnetic-flux-leakage traces of pipeline segments from eight in-line inspection runs, three channels
(axial, radial, circumferential), one frame per 10 cm. Tags: 0 wall (background), 1 girth weld, 2 dent,
3 metal loss. The tools write 8-bit counts (uint8): the run's lift-off reference (the counts with the tool
in the launcher, per channel, stored once per run as `reference`) plus the on-wall flux (a background of
about one unit per channel plus the signal) times the tool's sensitivity, a temperature factor and 24
counts per unit. calibration.py recovers flux = (counts - reference) / 24 / gain. The deepest metal-loss
pits take the axial flux below the lift-off reference (laminations occasionally, wall almost never), so a
subtraction in uint8 wraps those frames to ~200-255 counts.
Metal-loss boundaries in the labels are jittered by up to 2 frames (the analysts' disagreement, real).
The manifest lists segments in upload order (crews upload in parallel, so runs interleave); each run
file stores its segments in chainage order.
"""

from pathlib import Path

import numpy as np

OUT = Path("cases/frontier_case_09/data")
RUNS = [("R2601", "MFL-A"), ("R2602", "MFL-C"), ("R2603", "MFL-B"), ("R2604", "MFL-A"),
        ("R2605", "MFL-C"), ("R2606", "MFL-B"), ("R2607", "MFL-C"), ("R2608", "MFL-A")]
SENS = {"MFL-A": 0.62, "MFL-B": 1.0, "MFL-C": 1.55}
BACKGROUND = np.array([1.0, 1.1, 1.0])   # on-wall flux above the lift-off reading, per channel
COUNTS_PER_UNIT = 24


def bump(n):
    r = np.ones(n)
    r[0] = r[-1] = 0.5
    return r


def segment(rng, T):
    x = np.zeros((T, 3))
    e = rng.normal(0, 0.14, (T, 3))
    for t in range(1, T):
        x[t] = 0.6 * x[t - 1] + e[t]
    x[:, 0] += 0.2 * np.sin(np.arange(T) / rng.uniform(15, 40) + rng.uniform(0, 6))
    tags = np.zeros(T, np.int64)
    labels = np.zeros(T, np.int64)
    t = int(rng.integers(5, 40))
    while t < T - 3:  # girth welds
        x[t:t + 3] += np.array([2.6, 1.8, 1.2]) * rng.uniform(0.9, 1.1)
        tags[t:t + 3] = 1
        t += int(rng.integers(45, 80))
    for _ in range(rng.poisson(T / 70)):  # laminations: shallow axial dips, wall
        w, c = int(rng.integers(4, 10)), int(rng.integers(0, T))
        a, b = max(0, c - w // 2), min(T, c + w // 2 + 1)
        if (tags[a:b] == 0).all():
            x[a:b, 0] -= rng.uniform(0.25, 0.5) * bump(b - a)
    for _ in range(rng.poisson(T / 120)):  # dents
        w, c = int(rng.integers(5, 10)), int(rng.integers(4, T - 4))
        a, b = max(0, c - w // 2), min(T, c + w // 2 + 1)
        if (tags[max(0, a - 2):b + 2] == 0).all():
            x[a:b, 1] += rng.uniform(0.7, 1.4) * np.hanning(b - a + 2)[1:-1]
            x[a:b, 0] += rng.uniform(0.1, 0.4) * np.hanning(b - a + 2)[1:-1]
            tags[a:b] = 2
    for _ in range(rng.poisson(T / 60)):  # metal loss
        w, c = int(rng.integers(5, 12)), int(rng.integers(4, T - 4))
        a, b = max(0, c - w // 2), min(T, c + w // 2 + 1)
        if (tags[max(0, a - 2):b + 2] == 0).all():
            x[a:b, 0] -= rng.uniform(0.7, 1.2) * bump(b - a)
            x[a:b, 2] += rng.uniform(0.0, 0.15) * np.hanning(b - a + 2)[1:-1]
            tags[a:b] = 3
    labels[:] = tags
    for a in np.flatnonzero(np.diff(np.r_[0, (tags == 3).astype(int)]) == 1):  # analysts' extents
        b = a + int(np.argmin(tags[a:] == 3)) if (tags[a:] != 3).any() else len(tags)
        la, lb = a + int(rng.integers(-1, 2)), b + int(rng.integers(-1, 2))
        labels[a:b] = 0
        labels[max(0, la):max(max(0, la) + 2, min(T, lb))] = 3
    return x, labels


def main():
    rng = np.random.default_rng(9)
    (OUT / "traces").mkdir(parents=True, exist_ok=True)
    rows = []
    for run, tool in RUNS:
        n = int(rng.integers(48, 60))
        temp = rng.uniform(-4, 28)
        ref = rng.integers(50, 69, 3)
        ids, lens, xs, ys = [], [], [], []
        km = rng.uniform(0, 50)
        for k in range(n):
            T = int(np.exp(rng.uniform(np.log(30), np.log(600))))
            x, y = segment(rng, T)
            t_k = temp + rng.normal(0, 1.5)
            gain = SENS[tool] * (1 + 0.006 * (t_k - 15))
            raw = np.round(ref + (BACKGROUND + x) * gain * COUNTS_PER_UNIT)
            assert raw.min() >= 0 and raw.max() <= 255, (run, raw.min(), raw.max())
            raw = raw.astype(np.uint8)
            sid = f"{run}-{k:03d}"
            ids.append(sid); lens.append(T); xs.append(raw); ys.append(y)
            up = rng.uniform(0, 72)
            rows.append((up, sid, run, tool, round(km, 2), round(t_k, 1), T))
            km += T / 10000
        np.savez_compressed(OUT / "traces" / f"{run}.npz", seg_ids=np.array(ids), lengths=np.array(lens),
                            counts=np.concatenate(xs), reference=ref.astype(np.uint8), tags=np.concatenate(ys).astype(np.int8))
    rows.sort()
    with open(OUT / "manifest.csv", "w") as f:
        f.write("segment,run,tool,start_km,tool_temp_c,frames,uploaded_h\n")
        for up, sid, run, tool, km, tc, T in rows:
            f.write(f"{sid},{run},{tool},{km},{tc},{T},{up:.2f}\n")


if __name__ == "__main__":
    main()
