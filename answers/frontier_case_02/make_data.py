"""How frontier_case_02's data were generated (hidden half; run from the case folder to regenerate).

    python ../../answers/frontier_case_02/make_data.py

Four farms, 24 cows each, ten days of six-hour collar windows (40 per cow): 3,840 windows. Each farm's
gateway numbers its collars C01..C24 (the same tags at every farm) and writes its export time-major (every
collar's window at 00:00, then 06:00, ...). Every cow has her own baseline on every channel (sd 1.0 on the
activity-type channels), each farm its own offsets (collar firmware and barn), a shared daily rhythm.

States are episodes: lame (12-20 windows), mastitis (6-10), ketosis (8-16) change the levels for days;
heat lasts two windows and is a JUMP against the cow's own previous window (activity and steps up, rumination
and lying down). A third of the heats are silent (labelled from the insemination records, barely visible):
The rest are detectable only against the same cow's previous window.

Feed-bunk visits come from the bunk's RFID reader as a raw count per window, with the hours the cow's tag was
in the reader's range (`logged_h`; 6.0 for most windows, less when the tag dropped out, 0 for a few windows
with no reading at all). Every cow has her own visit rate (about 0.7-1.8 visits per hour); ketosis cuts it
to about 40% (0.3-0.7 per hour), which is what ketosis is mostly told apart by; its other effects are mild.
A third of ketosis episodes are subclinical (found by the blood BHB test at the herd check, behaviour
barely changed, effect x0.25): that is the README's true excuse for ketosis recall. Last season's exports
left `bunk_visits` blank when the bunk reader was down, so pandas read that column as float64; this
season's have no blanks, so it reads as int64 (the run's rate buffer, `np.zeros_like(visits)`, follows it).
"""

from pathlib import Path

import numpy as np

STATES = ("normal", "heat", "lame", "mastitis", "ketosis")
FEATURES = ("activity", "steps", "rumination_min", "eating_min", "lying_min", "lying_bouts", "neck_temp",
            "head_down_min", "idle_min", "panting_index", "water_visits")
FARMS = ("ashby", "brook-end", "carrow", "dunmere")
N_COWS, N_WIN = 24, 40

# per-state effect on each feature (in sd units)
EFFECT = {
    "heat":     dict(activity=2.4, steps=2.2, rumination_min=-1.3, lying_min=-1.2, eating_min=-0.6, idle_min=-0.5),
    "lame":     dict(activity=-1.1, steps=-1.5, lying_min=1.3, lying_bouts=-0.9, idle_min=0.6),
    "mastitis": dict(neck_temp=1.6, rumination_min=-0.9, eating_min=-1.0, water_visits=0.9, panting_index=0.7),
    "ketosis":  dict(rumination_min=-0.35, eating_min=-0.3, activity=-0.15, head_down_min=-0.25),
}
COW_SD = np.array([1.5, 1.5, 1.1, 0.5, 1.0, 0.4, 0.3, 0.4, 0.4, 0.4, 0.4])
HEAVY = [5, 9, 10]
KETO_RATE = 0.4  # bouts, panting and visit counts: heavy-tailed
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
    rhythm = np.outer(np.cos(2 * np.pi * (hours % 24) / 24), [0.5, 0.5, -0.3, 0.3, -0.4, 0, 0.1, 0.2, -0.2, 0.2, 0.2])
    for farm in FARMS:
        farm_off = rng.normal(0, 0.7, len(FEATURES))
        rows = []
        for c in range(N_COWS):
            base = farm_off + rng.normal(0, 1, len(FEATURES)) * COW_SD
            states = cow_states(rng)
            x = base + rhythm + rng.normal(0, NOISE_SD, (N_WIN, len(FEATURES)))
            x[:, HEAVY] += 1.6 * rng.standard_t(2.0, (N_WIN, len(HEAVY)))
            rate = np.exp(rng.normal(np.log(1.1), 0.25)) * (1 + 0.15 * np.cos(2 * np.pi * (hours % 24) / 24))
            logged = np.full(N_WIN, 6.0)
            gaps = rng.random(N_WIN) < 0.12
            logged[gaps] = np.round(rng.uniform(3.0, 5.9, gaps.sum()), 2)
            logged[rng.random(N_WIN) < 0.01] = 0.0
            keto_scale = 1.0
            for t in range(N_WIN):
                name = STATES[states[t]]
                if name == "normal":
                    continue
                scale = 1.0
                if name == "ketosis":
                    if t == 0 or states[t - 1] != 4:
                        keto_scale = 0.25 if rng.random() < 0.33 else 1.0
                    scale = keto_scale
                    rate[t] *= 1 - (1 - KETO_RATE) * scale
                if name == "heat":
                    first = t == 0 or states[t - 1] != 1
                    if first:
                        silent = rng.random() < 0.33
                    scale = 0.2 if silent else 1.0
                for f, v in EFFECT[name].items():
                    x[t, FEATURES.index(f)] += scale * v * (1.0 if name == "heat" else 1.4)
            visits = np.round(rate * logged * (1 + rng.normal(0, 0.05, N_WIN))).astype(np.int64)
            for t in range(N_WIN):
                rows.append((hours[t], c, STATES[states[t]], x[t], visits[t], logged[t]))
        rows.sort(key=lambda r: (r[0], r[1]))
        tag = "".join(w[0] for w in farm.split("-")).upper()
        with open(out / f"{farm}.csv", "w") as f:
            f.write("window_id,collar,start_h,state," + ",".join(FEATURES) + ",bunk_visits,logged_h\n")
            for i, (h, c, st, x, v, lh) in enumerate(rows):
                f.write(f"{tag}26-{i:05d},C{c + 1:02d},{h},{st}," + ",".join(f"{u:.4f}" for u in x)
                        + f",{v:d},{lh:.2f}\n")


if __name__ == "__main__":
    main()
