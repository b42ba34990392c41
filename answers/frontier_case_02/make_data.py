"""How frontier_case_02's data were generated (hidden half; run from the case folder to regenerate).

    python ../../answers/frontier_case_02/make_data.py

Four farms, 24 cows each, ten days of six-hour collar windows (40 per cow): 3,840 windows. Each farm's
gateway numbers its collars C01..C24 (the same tags at every farm) and writes its export time-major (every
collar's window at 00:00, then 06:00, ...). Every cow has her own baseline on every channel (sd 1.0 on the
activity-type channels), each farm its own offsets (collar firmware and barn), a shared daily rhythm.

States are episodes: lame (12-20 windows), mastitis (6-10), ketosis (8-16) change the levels for days;
heat lasts two windows and is a JUMP against the cow's own previous window (activity and steps up, rumination
and lying down). A third of the heats are silent (labelled from the insemination records, barely visible):
that is the README's true excuse. The rest are detectable only against the same cow's previous window.
"""

from pathlib import Path

import numpy as np

STATES = ("normal", "heat", "lame", "mastitis", "ketosis")
FEATURES = ("activity", "steps", "rumination_min", "eating_min", "lying_min", "lying_bouts", "neck_temp",
            "head_down_min", "idle_min", "panting_index", "feed_visits", "water_visits")
FARMS = ("ashby", "brook-end", "carrow", "dunmere")
N_COWS, N_WIN = 24, 40

# per-state effect on each feature (in sd units)
EFFECT = {
    "heat":     dict(activity=2.4, steps=2.2, rumination_min=-1.3, lying_min=-1.2, eating_min=-0.6, idle_min=-0.5),
    "lame":     dict(activity=-1.1, steps=-1.5, lying_min=1.3, lying_bouts=-0.9, feed_visits=-0.8, idle_min=0.6),
    "mastitis": dict(neck_temp=1.6, rumination_min=-0.9, eating_min=-1.0, water_visits=0.9, panting_index=0.7),
    "ketosis":  dict(rumination_min=-1.2, eating_min=-1.3, feed_visits=-0.9, activity=-0.5, head_down_min=-0.8),
}
COW_SD = np.array([1.5, 1.5, 1.1, 0.5, 1.0, 0.4, 0.3, 0.4, 0.4, 0.4, 0.4, 0.4])
HEAVY = [5, 9, 10, 11]  # bouts, panting and visit counts: heavy-tailed
NOISE_SD = 0.45


def cow_states(rng):
    s = np.zeros(N_WIN, dtype=np.int64)
    t = int(rng.integers(0, 6))
    while t < N_WIN:
        r = rng.random()
        if r < 0.36:
            k, length = 1, 2
        elif r < 0.48:
            k, length = 2, int(rng.integers(12, 21))
        elif r < 0.66:
            k, length = 3, int(rng.integers(6, 11))
        elif r < 0.82:
            k, length = 4, int(rng.integers(8, 17))
        else:
            k, length = 0, 0
        s[t:t + length] = k
        t += length + int(rng.integers(4, 14))
    return s


def main(out_dir="data/exports", seed=20260402):
    rng = np.random.default_rng(seed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    hours = np.arange(N_WIN) * 6
    rhythm = np.outer(np.cos(2 * np.pi * (hours % 24) / 24), [0.5, 0.5, -0.3, 0.3, -0.4, 0, 0.1, 0.2, -0.2, 0.2, 0.3, 0.2])
    for farm in FARMS:
        farm_off = rng.normal(0, 0.7, len(FEATURES))
        rows = []
        for c in range(N_COWS):
            base = farm_off + rng.normal(0, 1, len(FEATURES)) * COW_SD
            states = cow_states(rng)
            x = base + rhythm + rng.normal(0, NOISE_SD, (N_WIN, len(FEATURES)))
            x[:, HEAVY] += 0.8 * rng.standard_t(2.0, (N_WIN, len(HEAVY)))
            for t in range(N_WIN):
                name = STATES[states[t]]
                if name == "normal":
                    continue
                scale = 1.0
                if name == "heat":
                    first = t == 0 or states[t - 1] != 1
                    if first:
                        silent = rng.random() < 0.33
                    scale = 0.2 if silent else 1.0
                for f, v in EFFECT[name].items():
                    x[t, FEATURES.index(f)] += scale * v * (1.0 if name == "heat" else 1.4)
            for t in range(N_WIN):
                rows.append((hours[t], c, STATES[states[t]], x[t]))
        rows.sort(key=lambda r: (r[0], r[1]))
        tag = "".join(w[0] for w in farm.split("-")).upper()
        with open(out / f"{farm}.csv", "w") as f:
            f.write("window_id,collar,start_h,state," + ",".join(FEATURES) + "\n")
            for i, (h, c, st, x) in enumerate(rows):
                f.write(f"{tag}26-{i:05d},C{c + 1:02d},{h},{st}," + ",".join(f"{v:.4f}" for v in x) + "\n")


if __name__ == "__main__":
    main()
