"""frontier_case_08: how the case's data were generated (hidden; never reaches the agent).

    python answers/frontier_case_08/make_data.py cases/frontier_case_08

Writes data/exports/<house>.csv (the 2026 season: 4 glasshouses x 8 zones x 120 six-hour windows, rows in
export order = by window start across the house's zones) and pretrained/climnet_2025.npz (a backbone and a
4-state head trained here on a 2025 season drawn from the same generator without the valve_hunting state and
without storms, plus the 2025 input statistics). Zone states persist over episodes. Each zone's irrigation
water meter is exported as its total since commissioning (west-range's meters are old: 1.7e7-2.1e7 L, where
float32 resolves 2 L); valve_hunting (about 5% of windows) shows mostly as small irregular volumes through
the meter (1-2.5 L against 0.2 L of meter noise) plus a small swing of the other readings. Storm fronts hit
all zones of one house at the same window.
"""

import sys
from pathlib import Path

import numpy as np
import torch
from torch import nn

STATES = ["normal", "heating_fault", "vent_stuck", "screen_fault", "valve_hunting"]
PREVALENCE = [0.46, 0.17, 0.15, 0.13, 0.09]
FEATURES = ["air_temp", "leaf_temp", "rh", "vpd", "co2_ppm", "par", "pipe_temp", "supply_temp", "return_temp",
            "heat_valve", "vent_lee", "vent_wind", "screen_pos", "fan_ratio", "substrate_wc", "drain_ec",
            "water_meter_l", "outside_temp", "outside_rad", "wind_speed"]
HOUSES = {"north-bay": "NB", "south-bay": "SB", "east-range": "ER", "west-range": "WR"}
ZONES, WINDOWS = 8, 120
SHIFT = {1: 0.85, 2: 0.75, 3: 0.8, 4: 0.2}
HUNT = 0.35         # valve hunting: readings swing a little up and down from one window to the next
HUNT_L = (1.0, 2.5)  # ... and the valve opening and closing passes small irregular volumes through the meter
METER = "water_meter_l"  # exported as the zone meter's running total (litres since commissioning)
DOSE_L = (600.0, 1400.0)  # a zone's irrigation per six-hour window
METER_NOISE_L = 0.2
METER_AGE = {"north-bay": (1.0e6, 1.6e7), "south-bay": (1.0e6, 1.6e7), "east-range": (1.0e6, 1.6e7),
             "west-range": (1.0e6, 1.6e7)}  # total at the season's start: every house's meters have run for years
RECHECK = 100  # windows per house the agronomist double-checked against the valve logs (data/recheck.csv)
HUNT_MISSED = 0.3    # hunting windows the growers' walk-round log still has as normal
STORMS = {2026: 2}  # storm fronts per house (none in 2025): one whole house's weather inputs far outside the usual range
STORM_SIGN = {"outside_temp": -1, "outside_rad": -1, "wind_speed": 1, "vent_lee": 0, "vent_wind": 0}  # vents (0): each zone's own controller
SEASON_SHIFT = {2026: {"outside_temp": 0.9, "rh": -0.7}}  # a warmer, drier spring than 2025


def prototypes():
    rng = np.random.default_rng(7)
    protos = np.zeros((len(STATES), len(FEATURES)))
    for c, scale in SHIFT.items():
        v = rng.normal(0, 1, len(FEATURES))
        protos[c] = scale * v / np.sqrt((v ** 2).mean())
    v = rng.normal(0, 1, len(FEATURES))
    hunt = HUNT * v / np.sqrt((v ** 2).mean())
    return protos, hunt


def season(seed, states_allowed, year):
    rng = np.random.default_rng(seed)
    protos, hunt = prototypes()
    prev = np.array([PREVALENCE[s] for s in states_allowed])
    prev = prev / prev.sum()
    files = {}
    season_shift = np.zeros(len(FEATURES))
    for name, v in SEASON_SHIFT.get(year, {}).items():
        season_shift[FEATURES.index(name)] = v
    weather = [FEATURES.index(n) for n in STORM_SIGN]
    signs = np.array(list(STORM_SIGN.values()), dtype=float)
    m = FEATURES.index(METER)
    for house, code in HOUSES.items():
        house_off = rng.normal(0, 0.45, len(FEATURES))
        phase = int(rng.integers(0, 6))
        storm_t = rng.choice(WINDOWS, STORMS.get(year, 0), replace=False)
        storm = {int(t): np.where(signs == 0, 1.0, signs) * rng.uniform(200, 400, len(weather)) for t in storm_t}
        rows = []
        for z in range(ZONES):
            zone = f"Z{z + 1:02d}"
            zone_off = rng.normal(0, 0.5, len(FEATURES))
            dose = rng.uniform(*DOSE_L)
            total = rng.uniform(*METER_AGE[house])
            t, state = 0, None
            noise = rng.normal(0, 1, len(FEATURES))
            while t < WINDOWS:
                state = states_allowed[rng.choice(len(prev), p=prev)]
                length = 1 + rng.geometric(1 / 10)
                sign = 1.0
                for _ in range(length):
                    if t >= WINDOWS:
                        break
                    noise = 0.6 * noise + 0.8 * rng.normal(0, 1, len(FEATURES))
                    x = house_off + zone_off + protos[state] + noise + season_shift
                    used = dose + rng.normal(0, METER_NOISE_L)
                    if STATES[state] == "valve_hunting":
                        x = x + sign * hunt
                        used += sign * rng.uniform(*HUNT_L)
                        sign = -sign
                    if t in storm:
                        x[weather] += storm[t] * np.where(signs == 0, rng.choice([-1.0, 1.0], len(weather)), 1.0)
                    total += used
                    x[m] = total
                    label = STATES[state]
                    if label == "valve_hunting" and rng.random() < HUNT_MISSED:
                        label = "normal"
                    rows.append((t * 6 + phase, zone, label, x, STATES[state]))
                    t += 1
        rows.sort(key=lambda r: (r[0], r[1]))
        files[house] = [(f"{code}{year % 100}-{i:05d}", zone, start, st, x, true)
                        for i, (start, zone, st, x, true) in enumerate(rows)]
    return files


def to_arrays(files):
    """(features with per-zone deltas, labels) in zone, time order: the pretraining's own featurisation."""
    xs, ys = [], []
    for rows in files.values():
        by_zone = {}
        for r in rows:
            by_zone.setdefault(r[1], []).append(r)
        for zone in sorted(by_zone):
            rs = sorted(by_zone[zone], key=lambda r: r[2])
            x = np.stack([r[4] for r in rs])
            m = FEATURES.index(METER)
            used = np.diff(x[:, m])
            x[:, m] = np.r_[used[0], used]
            d = np.vstack([np.zeros((1, x.shape[1])), np.diff(x, axis=0)])
            xs.append(np.hstack([x, d]))
            ys += [STATES.index(r[3]) for r in rs]
    return np.vstack(xs), np.array(ys)


def write_csv(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        f.write("window_id,zone,start_h,state," + ",".join(FEATURES) + "\n")
        for wid, zone, start, st, x, _ in rows:
            f.write(f"{wid},{zone},{start},{st}," + ",".join(f"{v:.2f}" if FEATURES[i] == METER else f"{v:.4f}" for i, v in enumerate(x)) + "\n")


def pretrain(files, out):
    x, y = to_arrays(files)
    mean, std = x.mean(0), x.std(0)
    xt = torch.tensor((x - mean) / std, dtype=torch.float32)
    yt = torch.tensor(y)
    torch.manual_seed(2025)
    backbone = nn.Sequential(nn.Linear(40, 96), nn.GELU(), nn.Dropout(0.1), nn.Linear(96, 96), nn.GELU(), nn.Dropout(0.1),
                             nn.Linear(96, 64), nn.GELU())
    head = nn.Linear(64, 4)
    params = list(backbone.parameters()) + list(head.parameters())
    opt = torch.optim.AdamW(params, lr=2e-3, weight_decay=1e-2)
    g = torch.Generator().manual_seed(0)
    for epoch in range(12):
        perm = torch.randperm(len(xt), generator=g)
        for i in range(0, len(xt), 64):
            b = perm[i:i + 64]
            loss = nn.functional.cross_entropy(head(backbone(xt[b])), yt[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
    backbone.eval()
    with torch.no_grad():
        acc = (head(backbone(xt)).argmax(1) == yt).float().mean().item()
    print(f"pretraining accuracy (2025, 4 states) {acc:.3f}")
    arrays = {f"backbone.{k}": v.numpy() for k, v in backbone.state_dict().items()}
    arrays.update({f"head.{k}": v.numpy() for k, v in head.state_dict().items()})
    arrays["input_mean"] = mean.astype(np.float32)
    arrays["input_std"] = std.astype(np.float32)
    arrays["classes"] = np.array(STATES[:4])
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, **arrays)


def main(case_dir):
    case = Path(case_dir)
    files = season(2026, [0, 1, 2, 3, 4], 2026)
    rng = np.random.default_rng(2026)
    checked = []
    for house, rows in files.items():
        write_csv(case / "data" / "exports" / f"{house}.csv", rows)
        for i in sorted(rng.choice(len(rows), RECHECK, replace=False)):
            checked.append((rows[i][0], rows[i][3], rows[i][5]))
    with open(case / "data" / "recheck.csv", "w") as f:
        f.write("window_id,logged_state,checked_state\n")
        f.writelines(f"{w},{a},{b}\n" for w, a, b in checked)
    pretrain(season(2025, [0, 1, 2, 3], 2025), case / "pretrained" / "climnet_2025.npz")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cases/frontier_case_08")
