"""frontier_case_03: how the case's data were generated (hidden; never reaches the agent).

    python answers/frontier_case_03/make_data.py cases/frontier_case_03

Writes data/exports/<farm>.csv: 4 farms x 10 cows x 110 four-hour windows of collar and parlour readings,
rows in export order (by window start; within a slot in the order the collars reported: by tag, a few out of turn). Each farm numbers its cows with its own
ear tags, drawn from the same range, so tags repeat across farms (a different cow on each farm). Every cow
has its own baseline (between-cow spread larger than the heat signature), so heat is visible mainly as a
deviation from the cow's own baseline; 35% of heat episodes are silent (a third of the signature).
Oakfield's in-line conductivity sensor spikes on a few dozen readings (real, harmless).

Round 10: lameness is a short episode again (8-16 windows, like mastitis). The collar's accelerometer exports
the window's motion energy in four frequency bands (acc_0_1hz .. acc_6_12hz): log10 energy = the band's shape
+ the collar fit (log10 gain, normal with sd FIT_SD between fittings, a cow refitted once in the season with
probability 0.5; per-cow medians span about 20x) + ACT_LEVEL per sd of the window's activity + noise; heat
shifts the shape toward the fast bands (mounting), lameness adds LAME_LEVEL to every band alike (a lame cow
nods at every step: the same shape, more energy), mastitis nothing. Between-cow spread 0.45 sd (gait 0.3).
The herd manager's lameness labels lag the true episodes a little (LAG: 1-3 windows late in, 1-2 late out);
data/vet_recheck.csv holds the vet's label next to his for RECHECK windows per farm drawn at random from those
either of them would call lameness (22 of 160 disputed). The label draws use their own random stream.
"""

import sys
from pathlib import Path

import numpy as np

STATES = ["normal", "heat", "lameness", "mastitis"]
LAME_GAIT = 1.3   # gait asymmetry in sd
LAME_LEVEL = 0.6  # log10: a lame cow nods at every step, more neck motion in every band alike
FEATURES = ["activity", "lying_min", "lying_bouts", "rumination_min", "eating_min",
            "neck_temp", "milk_yield", "conductivity", "gait_asym"]
MEAN = np.array([310.0, 130.0, 4.0, 95.0, 60.0, 38.6, 9.5, 5.2, 0.08])
SCALE = np.array([60.0, 18.0, 1.0, 14.0, 10.0, 0.25, 1.6, 0.35, 0.03])
SIG = {
    1: {"activity": 1.0, "lying_min": -0.6, "rumination_min": -0.5, "eating_min": -0.3},
    2: {"gait_asym": LAME_GAIT, "lying_min": 0.8, "activity": -0.3, "lying_bouts": -0.5},
    3: {"conductivity": 1.8, "milk_yield": -1.0, "neck_temp": 0.7, "rumination_min": -0.4},
}
EPISODE = {1: (3, 6), 2: (8, 16), 3: (6, 12)}
RATE = {1: 0.05, 2: 0.012, 3: 0.02}
FARMS = ["brookside", "hillcrest", "low-meadow", "oakfield"]
COWS, WINDOWS = 10, 110
SWAP = 0.5  # a collar reports after its neighbour in the tag order
HEAT_SIG = 1.0  # heat's collar signature relative to iteration 1-2 (round 7 had 0.6)
LAME_SIG = 1.0  # lameness's signature in the collar and parlour columns
LAG = 0.5
RECHECK = 40  # windows per farm the vet re-checked
COW_SD = np.array([0.45] * 8 + [0.3])  # between-cow spread
BANDS = ["acc_0_1hz", "acc_1_3hz", "acc_3_6hz", "acc_6_12hz"]
BAND_SHAPE = np.array([2.2, 1.9, 1.5, 1.0])       # log10 energy of a snug collar on a cow at rest
HEAT_SHAPE = np.array([-0.05, 0.0, 0.12, 0.22])    # mounting and restlessness: more of the fast bands
FIT_SD = 0.3                                       # collar fit: log10 gain, sd between fittings
ACT_LEVEL = 0.25                                   # log10 energy per sd of activity
EXPORTED = FEATURES + BANDS


def cow_states(rng):
    s, out, left = 0, [], 0
    for _ in range(WINDOWS):
        if left > 0:
            left -= 1
            if left == 0:
                s = 0
        elif rng.random() < sum(RATE.values()):
            ks = sorted(RATE)
            s = int(rng.choice(ks, p=np.array([RATE[k] for k in ks]) / sum(RATE.values())))
            left = int(rng.integers(*EPISODE[s]))
        out.append(s)
    return out


def collar_fit(rng):
    """log10 gain of the collar's accelerometer energy per window: how snugly it sits; refitted once in the
    season on about half the cows."""
    g = np.full(WINDOWS, rng.normal(0.6, FIT_SD))
    if rng.random() < 0.5:
        g[int(rng.integers(10, WINDOWS - 10)):] = rng.normal(0.6, FIT_SD)
    return g


def main(case_dir):
    rng = np.random.default_rng(303)
    out = Path(case_dir) / "data" / "exports"
    out.mkdir(parents=True, exist_ok=True)
    wid = 0
    recheck, wids, tags_of = [], {}, {}
    for farm in FARMS:
        tags = sorted(rng.choice(np.arange(101, 126), size=COWS, replace=False))
        tags_of[farm] = tags
        base = rng.normal(0, 1.0, size=(COWS, len(FEATURES))) * COW_SD
        states = [cow_states(rng) for _ in range(COWS)]
        fits = [collar_fit(rng) for _ in range(COWS)]
        silent = {}
        amps = np.zeros((COWS, WINDOWS))
        rows = []
        for t in range(WINDOWS):
            for c, tag in enumerate(tags):
                s = states[c][t]
                z = base[c] + rng.normal(0, 0.35, size=len(FEATURES))
                if s:
                    key = (c, t - sum(1 for _ in ()))
                    amp = 1.0
                    if s == 1:
                        start = t
                        while start > 0 and states[c][start - 1] == 1:
                            start -= 1
                        if (c, start) not in silent:
                            silent[(c, start)] = rng.random() < 0.35
                        amp = 0.33 if silent[(c, start)] else 1.0
                    amps[c, t] = amp
                    for name, v in SIG[s].items():
                        z[FEATURES.index(name)] += amp * v * {1: HEAT_SIG, 2: LAME_SIG}.get(s, 1.0)
                x = MEAN + SCALE * z
                e = (BAND_SHAPE + fits[c][t] + ACT_LEVEL * (z[0] - base[c][0]) + rng.normal(0, 0.08, len(BANDS))
                     + rng.normal(0, 0.1))
                if s == 1:
                    e = e + amps[c, t] * HEAT_SHAPE
                if s == 2:
                    e = e + LAME_LEVEL
                x = np.concatenate([x, 10.0 ** e])
                if farm == "oakfield" and 40 <= t < 52 and rng.random() < 0.3:
                    x[FEATURES.index("conductivity")] += rng.uniform(4.0, 7.0)
                rows.append([str(tag), str(4 * t), STATES[s]] + [f"{v:.4g}" for v in x])
        # the label draws use their own random stream
        wk = np.random.default_rng(7070 + FARMS.index(farm))
        # the herd manager's labels: lameness is noticed a little late and signed off a little late
        herd = [list(st) for st in states]
        for c in range(COWS):
            t = 0
            while t < WINDOWS:
                if states[c][t] == 2:
                    e = t
                    while e < WINDOWS and states[c][e] == 2:
                        e += 1
                    late = int(wk.integers(1, 4)) if wk.random() < LAG else 0
                    for u in range(t, min(t + late, e)):
                        herd[c][u] = 0
                    over = int(wk.integers(1, 3)) if wk.random() < LAG else 0
                    for u in range(e, min(e + over, WINDOWS)):
                        if states[c][u] == 0:
                            herd[c][u] = 2
                    t = e
                else:
                    t += 1
        for t in range(WINDOWS):
            for c in range(COWS):
                rows[t * COWS + c][2] = STATES[herd[c][t]]
        # the vet's re-check: a sample of the windows either of them would call lameness
        related = [(c, t) for c in range(COWS) for t in range(WINDOWS) if 2 in (herd[c][t], states[c][t])]
        pick = wk.choice(len(related), size=min(RECHECK, len(related)), replace=False)
        for i in sorted(pick.tolist(), key=lambda i: (related[i][1], related[i][0])):
            c, t = related[i]
            recheck.append((farm, c, t, STATES[herd[c][t]], STATES[states[c][t]]))
        # the gateway uploads each slot's windows in the order the collars report (not by tag)
        arrival = np.random.default_rng(3030 + FARMS.index(farm))
        ordered = []
        for t in range(WINDOWS):
            slot = rows[t * COWS:(t + 1) * COWS]
            order = list(range(COWS))
            for i in range(COWS - 1):
                if arrival.random() < SWAP:
                    order[i], order[i + 1] = order[i + 1], order[i]
            ordered += [(t, i, slot[i]) for i in order]
        ids = {}
        with open(out / f"{farm}.csv", "w") as f:
            f.write(",".join(["window_id", "cow", "start_h", "state"] + EXPORTED) + "\n")
            for t, c, r in ordered:
                wid += 1
                ids[(farm, c, t)] = f"w{wid:05d}"
                f.write(",".join([f"w{wid:05d}"] + r) + "\n")
        wids.update(ids)
    with open(Path(case_dir) / "data" / "vet_recheck.csv", "w") as f:
        f.write("window_id,farm,cow,herd_label,vet_label\n")
        for farm, c, t, h, v in recheck:
            f.write(f"{wids[(farm, c, t)]},{farm},{tags_of[farm][c]},{h},{v}\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
