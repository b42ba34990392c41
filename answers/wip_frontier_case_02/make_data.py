"""How frontier_case_02's data were generated (hidden half; run from the case folder to regenerate).

    python ../../answers/frontier_case_02/make_data.py

Four farms, 32 cows each, ten days of six-hour collar windows (40 per cow): 5,120 windows. Each farm's
gateway numbers its collars C01..C32 and writes its export time-major. Every cow has her own baseline on every
scaled channel (activity, steps, lying_bouts, neck_temp, panting_index, water_visits), each farm its own offsets,
a shared daily rhythm.

Jaw sound (round 10): the collar's microphone reports the window's sound energy in six octave bands
(`jaw_63hz` ... `jaw_2khz`, arbitrary units). Each collar has its own gain (how the collar sits, strap
tension, microphone age: log gain uniform in +-GAIN_SPAN = 0.9, so a collar's typical total spans about 6x
across collars),
each cow her own chewing spectrum (a shared profile x a per-cow tilt), a daily rhythm in shape and level, and
window noise (level sd 0.12 in log). Heat, mastitis and ketosis change the spectrum's SHAPE (less rumination:
the low bands drop; ketosis: a shift towards the middle bands). Lame changes only the LEVEL: every band x
exp(LAME_LEVEL) = 1.49 (the same shape), so dividing by the bands' own total erases it (layer B); the log total or the raw
bands keep it. Lame's gait signs (activity, steps, lying bouts) are moderate, so lame vs normal is the hard pair.
Lameness is locomotion-scored every other week, so a share of lame windows are logged `normal` (LAME_MISSED);
`data/locomotion_rescore.csv` holds 100 windows per farm drawn at random, with the state as logged and the
state after a second scorer's re-check: the README's true excuse.
"""

from pathlib import Path

import numpy as np

STATES = ("normal", "heat", "lame", "mastitis", "ketosis")
SCALED = ("activity", "steps", "lying_bouts", "neck_temp", "panting_index", "water_visits")
BANDS = ("jaw_63hz", "jaw_125hz", "jaw_250hz", "jaw_500hz", "jaw_1khz", "jaw_2khz")
COLUMNS = ("activity", "steps", "jaw_63hz", "jaw_125hz", "lying_bouts", "jaw_250hz", "neck_temp",
           "jaw_500hz", "jaw_1khz", "panting_index", "jaw_2khz", "water_visits")
FARMS = ("ashby", "brook-end", "carrow", "dunmere")
N_COWS, N_WIN = 32, 40

# per-state effect on the scaled channels (in sd units) and on the jaw-sound spectrum's shape (log, per band)
EFFECT = {
    "heat":     dict(activity=2.4, steps=2.2),
    "lame":     dict(activity=-1.2, steps=-1.5, lying_bouts=-0.9),
    "mastitis": dict(neck_temp=1.6, water_visits=0.9, panting_index=0.7),
    "ketosis":  dict(activity=-0.35, steps=-0.2),
}
SHAPE_EFFECT = {
    "heat":     np.array([-0.35, -0.30, -0.10, 0.05, 0.10, 0.10]),
    "mastitis": np.array([-0.25, -0.20, -0.05, 0.0, 0.05, 0.05]),
    "ketosis":  np.array([-0.10, 0.05, 0.20, 0.15, -0.05, -0.15]),
}
PROFILE = np.log(np.array([4.0, 9.0, 7.0, 3.5, 1.6, 0.7]))
GAIN_SPAN = 0.9
LEVEL_SD = 0.12
SHAPE_SD = 0.06
LAME_LEVEL = 0.40
COW_SD = np.array([1.5, 1.5, 0.4, 0.3, 0.4, 0.4])
HEAVY = [2, 4, 5]
LAME_MISSED = 0.15
RECHECK = 100
NOISE_SD = 0.45


def cow_states(rng):
    s = np.zeros(N_WIN, dtype=np.int64)
    t = int(rng.integers(0, 6))
    while t < N_WIN:
        r = rng.random()
        if r < 0.36:
            k, length = 1, 2
        elif r < 0.50:
            k, length = 2, int(rng.integers(10, 19))
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
    band_rhythm = np.outer(phase, [0.10, 0.08, 0.0, -0.04, -0.06, -0.06]) + 0.15 * phase[:, None]
    tilt = np.linspace(-1, 1, len(BANDS))
    for farm in FARMS:
        farm_off = rng.normal(0, 0.7, len(SCALED))
        rows = []
        for c in range(N_COWS):
            base = farm_off + rng.normal(0, 1, len(SCALED)) * COW_SD
            gain = rng.uniform(-GAIN_SPAN, GAIN_SPAN)
            profile = PROFILE + rng.normal(0, 0.08) * tilt + rng.normal(0, 0.05, len(BANDS))
            states = cow_states(rng)
            x = base + rhythm + rng.normal(0, NOISE_SD, (N_WIN, len(SCALED)))
            x[:, HEAVY] += 9.0 * rng.standard_t(2.0, (N_WIN, len(HEAVY)))
            logb = (gain + profile + band_rhythm + rng.normal(0, LEVEL_SD, (N_WIN, 1))
                    + rng.normal(0, SHAPE_SD, (N_WIN, len(BANDS))))
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
                if name in SHAPE_EFFECT:
                    logb[t] += scale * SHAPE_EFFECT[name]
                if name == "lame":
                    logb[t] += LAME_LEVEL
                for f, v in EFFECT[name].items():
                    x[t, SCALED.index(f)] += scale * v * (1.0 if name == "heat" else 1.4)
            bands = 100.0 * np.exp(logb)
            logged = [STATES[k] if not (k == 2 and rng.random() < LAME_MISSED) else "normal" for k in states]
            for t in range(N_WIN):
                vals = dict(zip(SCALED, (f"{u:.4f}" for u in x[t])))
                vals.update(zip(BANDS, (f"{b:.1f}" for b in bands[t])))
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
    with open(out.parent / "locomotion_rescore.csv", "w") as f:
        f.write("window_id,farm,logged_state,rescored_state\n")
        for r in recheck:
            f.write(",".join(r) + "\n")


if __name__ == "__main__":
    main()
