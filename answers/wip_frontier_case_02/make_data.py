"""How wip_frontier_case_02's data were generated (hidden half; run from the case folder to regenerate).

    python ../../answers/wip_frontier_case_02/make_data.py

Four farms, 24 cows each, ten days of six-hour collar windows (40 per cow): 3,840 windows. Each farm's
gateway numbers its collars C01..C24 and writes its export time-major. Every cow has her own baseline on every
scaled channel (activity, steps, lying_bouts, neck_temp, panting_index, water_visits), each farm its own offsets,
a shared daily rhythm.

Behaviour minutes (round 9): the collar records `uptime_min` minutes of the window (360 minus gaps: 70% of
windows lose a few minutes to about an hour, 30% lose 40-200 minutes to a dropout) and classifies each recorded minute as
rumination, eating, lying, head-down or idle, or leaves it unclassified (walking, standing, the parlour: about
13%). The five `_min` columns are integer counts = uptime x the cow's time-budget fraction x noise. Each cow
has her own budget (sd 6% relative per behaviour, a common factor with sd 1.5%), a daily rhythm, window noise.
States act on the budget: heat cuts rumination, lying and eating (activity up); mastitis cuts rumination and
eating (temperature up); lame raises lying and idle. Ketosis scales EVERY behaviour by the same factor
(0.84-0.90: the cow does everything less, the unclassified share grows), plus a mild activity drop; its shares
of the classified minutes barely change, so dividing by the behaviours' own total erases it (layer B), while
minutes per recorded minute keep it.
Ketosis is logged from the blood BHB test, so a quarter of ketosis windows are logged `normal` (KETO_MISSED);
`data/bhb_recheck.csv` holds 100 windows per farm drawn at random, with the state as logged and the state the
vet found when she rechecked them: the README's true excuse.
"""

from pathlib import Path

import numpy as np

STATES = ("normal", "heat", "lame", "mastitis", "ketosis")
SCALED = ("activity", "steps", "lying_bouts", "neck_temp", "panting_index", "water_visits")
BEHAVIOURS = ("rumination_min", "eating_min", "lying_min", "head_down_min", "idle_min")
COLUMNS = ("activity", "steps", "rumination_min", "eating_min", "lying_min", "uptime_min", "lying_bouts",
           "neck_temp", "head_down_min", "idle_min", "panting_index", "water_visits")
FARMS = ("ashby", "brook-end", "carrow", "dunmere")
N_COWS, N_WIN = 24, 40

# per-state effect on the scaled channels (in sd units) and on the behaviour budget (relative)
EFFECT = {
    "heat":     dict(activity=2.4, steps=2.2),
    "lame":     dict(activity=-1.1, steps=-1.5, lying_bouts=-0.9),
    "mastitis": dict(neck_temp=1.6, water_visits=0.9, panting_index=0.7),
    "ketosis":  dict(activity=-0.35, steps=-0.2),
}
BUDGET_EFFECT = {
    "heat":     np.array([-0.30, -0.15, -0.30, 0.0, -0.20]),
    "lame":     np.array([0.0, -0.05, 0.25, 0.0, 0.20]),
    "mastitis": np.array([-0.22, -0.25, 0.05, 0.0, 0.0]),
    "ketosis":  np.array([-0.10, -0.08, 0.0, 0.0, 0.08]),
}
BUDGET = np.array([0.31, 0.18, 0.24, 0.06, 0.08])
KETO_SCALE = (0.93, 0.97)
COW_SD = np.array([1.5, 1.5, 0.4, 0.3, 0.4, 0.4])
HEAVY = [2, 4, 5]
KETO_MISSED = 0.25
RECHECK = 100
NOISE_SD = 0.45
MIN_NOISE = 0.05


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
    phase = np.cos(2 * np.pi * (hours % 24) / 24)
    rhythm = np.outer(phase, [0.5, 0.5, 0, 0.1, 0.2, 0.2])
    budget_rhythm = np.outer(phase, [0.12, -0.15, 0.10, 0.0, -0.05])
    for farm in FARMS:
        farm_off = rng.normal(0, 0.7, len(SCALED))
        farm_budget = np.exp(rng.normal(0, 0.04, len(BEHAVIOURS)))
        rows = []
        for c in range(N_COWS):
            base = farm_off + rng.normal(0, 1, len(SCALED)) * COW_SD
            budget = BUDGET * farm_budget * np.exp(rng.normal(0, 0.06, len(BEHAVIOURS)) + rng.normal(0, 0.015))
            states = cow_states(rng)
            x = base + rhythm + rng.normal(0, NOISE_SD, (N_WIN, len(SCALED)))
            x[:, HEAVY] += 6.0 * rng.standard_t(2.0, (N_WIN, len(HEAVY)))
            frac = budget * (1 + budget_rhythm) * np.exp(rng.normal(0, MIN_NOISE, (N_WIN, len(BEHAVIOURS))))
            big = rng.random(N_WIN) < 0.3
            gap = np.where(big, rng.integers(40, 201, N_WIN), rng.geometric(0.05, N_WIN) - 1)
            uptime = 360 - np.minimum(gap, 200)
            for t in range(N_WIN):
                name = STATES[states[t]]
                if name == "normal":
                    continue
                scale = 1.0
                if name == "ketosis":
                    frac[t] *= rng.uniform(*KETO_SCALE)
                if name == "heat":
                    first = t == 0 or states[t - 1] != 1
                    if first:
                        silent = rng.random() < 0.33
                    scale = 0.2 if silent else 1.0
                if name in BUDGET_EFFECT:
                    frac[t] *= 1 + scale * BUDGET_EFFECT[name]
                for f, v in EFFECT[name].items():
                    x[t, SCALED.index(f)] += scale * v * (1.0 if name == "heat" else 1.4)
            minutes = np.round(uptime[:, None] * frac).astype(np.int64)
            logged = [STATES[k] if not (k == 4 and rng.random() < KETO_MISSED) else "normal" for k in states]
            for t in range(N_WIN):
                vals = dict(zip(SCALED, (f"{u:.4f}" for u in x[t])))
                vals.update(zip(BEHAVIOURS, (str(m) for m in minutes[t])))
                vals["uptime_min"] = str(uptime[t])
                rows.append((hours[t], c, logged[t], [vals[k] for k in COLUMNS], STATES[states[t]]))
        rows.sort(key=lambda r: (r[0], r[1]))
        tag = "".join(w[0] for w in farm.split("-")).upper()
        with open(out / f"{farm}.csv", "w") as f:
            f.write("window_id,collar,start_h,state," + ",".join(COLUMNS) + "\n")
            for i, (h, c, st, vals, _) in enumerate(rows):
                f.write(f"{tag}26-{i:05d},C{c + 1:02d},{h},{st}," + ",".join(vals) + "\n")
        picked = np.sort(check_rng.choice(len(rows), RECHECK, replace=False))
        for i in picked:
            recheck.append((f"{tag}26-{i:05d}", farm, rows[i][2], rows[i][4]))
    with open(out.parent / "bhb_recheck.csv", "w") as f:
        f.write("window_id,farm,logged_state,checked_state\n")
        for r in recheck:
            f.write(",".join(r) + "\n")


if __name__ == "__main__":
    main()
