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

The milk column (`milk_l`) is the cow's milk-meter reading at the end of the window, as the parlour
software exports it: a running total in litres (the meters are refurbished units whose registers were never
reset: every cow's starts the season between 4e6 and 1.6e7 L, in every farm). A window's yield is the change
from her previous window's reading: about 8 L per cow (sd 0.2 L between cows, 0.12 L window to window).
Ketosis cuts the yield by 0.6-0.9 L; its other effects are mild (rumination -0.35, eating -0.3, activity
-0.15, head-down -0.25, x1.4), so ketosis is told apart from normal mostly by that small drop.
Ketosis is logged from the blood BHB test, so a quarter of ketosis windows are logged `normal` (KETO_MISSED);
`data/bhb_recheck.csv` holds 100 windows per farm drawn at random, with the state as logged and the state the
vet found when she rechecked them: the README's true excuse.
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
KETO_MISSED = 0.25
RECHECK = 100
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
    check_rng = np.random.default_rng(2026)
    recheck = []
    rhythm = np.outer(np.cos(2 * np.pi * (hours % 24) / 24), [0.5, 0.5, -0.3, 0.3, -0.4, 0, 0.1, 0.2, -0.2, 0.2, 0.2])
    for farm in FARMS:
        farm_off = rng.normal(0, 0.7, len(FEATURES))
        rows = []
        for c in range(N_COWS):
            base = farm_off + rng.normal(0, 1, len(FEATURES)) * COW_SD
            states = cow_states(rng)
            x = base + rhythm + rng.normal(0, NOISE_SD, (N_WIN, len(FEATURES)))
            x[:, HEAVY] += 2.4 * rng.standard_t(2.0, (N_WIN, len(HEAVY)))
            yield_l = rng.normal(8.0, 0.2) + rng.normal(0, 0.12, N_WIN)
            start_l = rng.uniform(4e6, 1.6e7)
            for t in range(N_WIN):
                name = STATES[states[t]]
                if name == "normal":
                    continue
                scale = 1.0
                if name == "ketosis":
                    yield_l[t] -= rng.uniform(0.6, 0.9)
                if name == "heat":
                    first = t == 0 or states[t - 1] != 1
                    if first:
                        silent = rng.random() < 0.33
                    scale = 0.2 if silent else 1.0
                for f, v in EFFECT[name].items():
                    x[t, FEATURES.index(f)] += scale * v * (1.0 if name == "heat" else 1.4)
            milk = np.round(start_l + np.cumsum(yield_l), 2)
            logged = [STATES[k] if not (k == 4 and rng.random() < KETO_MISSED) else "normal" for k in states]
            for t in range(N_WIN):
                rows.append((hours[t], c, logged[t], x[t], milk[t], STATES[states[t]]))
        rows.sort(key=lambda r: (r[0], r[1]))
        tag = "".join(w[0] for w in farm.split("-")).upper()
        cols = FEATURES[:5] + ("milk_l",) + FEATURES[5:]
        with open(out / f"{farm}.csv", "w") as f:
            f.write("window_id,collar,start_h,state," + ",".join(cols) + "\n")
            for i, (h, c, st, x, m, _) in enumerate(rows):
                vals = [f"{u:.4f}" for u in x[:5]] + [f"{m:.2f}"] + [f"{u:.4f}" for u in x[5:]]
                f.write(f"{tag}26-{i:05d},C{c + 1:02d},{h},{st}," + ",".join(vals) + "\n")
        picked = np.sort(check_rng.choice(len(rows), RECHECK, replace=False))
        for i in picked:
            recheck.append((f"{tag}26-{i:05d}", farm, rows[i][2], rows[i][5]))
    with open(out.parent / "bhb_recheck.csv", "w") as f:
        f.write("window_id,farm,logged_state,checked_state\n")
        for r in recheck:
            f.write(",".join(r) + "\n")


if __name__ == "__main__":
    main()
