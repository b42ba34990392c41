"""wip_frontier_case_17: how the case's data were generated (hidden; never reaches the agent).

    python answers/wip_frontier_case_17/make_data.py cases/wip_frontier_case_17

Writes data/exports/<site>.csv (the 2026 season: 4 detector sites x 8 wagons x 120 passes, rows in export
order = by pass time across the site's wagons) and pretrained/wheelnet_2025.npz (a backbone and a 4-condition
head trained here on a 2025 season drawn from the same generator without built-up tread, plus the 2025 input
statistics). Each row carries the label's source: "shop" (confirmed at the wheel shop; most defect passes) or
"wayside" (the detector crew's call; most sound passes, and 30% of its defect labels name another condition). Wheel
conditions persist over episodes; built-up tread looks like a weaker shelling (the signatures overlap), so
its recall depends on the confidence weights reaching the right passes.
"""

import sys
from pathlib import Path

import numpy as np
import torch
from torch import nn

CONDITIONS = ["sound", "flat_spot", "out_of_round", "shelled", "built_up_tread"]
PREVALENCE = [0.48, 0.17, 0.14, 0.13, 0.08]
FEATURES = [f"band_{f}hz" for f in (20, 40, 60, 80, 100, 125, 160, 200, 250, 315, 400, 500)] + [
    "peak_kn", "mean_kn", "crest", "kurtosis", "speed_kmh", "rail_temp", "axle_load_t", "noise_floor"]
SITES = {"ashby-junction": "AJ", "kerrow-cutting": "KC", "lindel-bank": "LB", "stroud-viaduct": "SV"}
WAGONS, PASSES = 8, 120
SHIFT = {1: 1.5, 2: 1.5, 3: 1.5}
SHOP_RATE = [0.08, 0.7, 0.7, 0.7, 0.75]       # share of each condition's passes confirmed at the shop
WAYSIDE_WRONG = 0.3                            # wayside defect calls that name the wrong condition
BAND_FACTORS = (1.0, 0.6, 0.35)                 # level, tilt, curvature: the shared band-energy factors (sd)
BAND_OWN = 0.20                                # each band's own variation (sd)
NOTCH = 0.16                                   # flat spots / out-of-round wheels: a small opposite notch at 160-250 Hz
PAIR_OTHER = 0.65                              # the pair's small difference outside the bands (kurtosis only)
PAIR_LEVEL = 0.90                              # flat spots hit harder: the whole spectrum +/- this at given speed and load
LEVEL_SPEED, LEVEL_LOAD = 0.9, 0.7             # the pass's impact level (every band alike) rises with speed and axle load
SHOP_SWAP = 0.13                               # shop flat/oval calls that name the other of the two
REINSPECTED = 0.2                              # share of the flat/oval calls re-inspected in June
NOISE_FLOOR_SITE = {"stroud-viaduct": 0.9}     # the viaduct's deck rings: the highest noise floor
SEASON_SHIFT = {2026: {"speed_kmh": 0.8, "rail_temp": -0.7}}  # faster timetable, a cold spring


NB = 12                                        # the impact spectrum's bands come first


def band_loadings():
    """(12, 3): how the shared factors (overall level, tilt, curvature) load the twelve bands."""
    u = np.linspace(-1, 1, NB)
    level = np.ones(NB)
    tilt = u
    curve = 1.5 * (u ** 2 - (u ** 2).mean())
    return np.stack([level, tilt, curve], axis=1)


def notch():
    """A narrow notch at 160-250 Hz, with the shared factors' shapes taken out (unit length)."""
    e = np.zeros(NB)
    e[[5, 6, 7, 8]] = [-0.6, 1.0, 1.0, -0.6]
    q, _ = np.linalg.qr(band_loadings())
    e = e - q @ (q.T @ e)
    return e / np.linalg.norm(e)


def prototypes():
    rng = np.random.default_rng(11)
    lo = band_loadings()
    protos = np.zeros((len(CONDITIONS), len(FEATURES)))
    for c, scale in SHIFT.items():
        v = rng.normal(0, 1, len(FEATURES) - NB)
        protos[c, NB:] = scale * v / np.sqrt((v ** 2).mean())
        protos[c, :NB] = lo @ rng.normal(0, 1.0, 3)
    protos[2] = protos[1]                      # flat and oval wheels: the same spectral shape and readings
    protos[1, :NB] += NOTCH * notch()
    protos[2, :NB] -= NOTCH * notch()
    d = np.zeros(len(FEATURES) - NB)
    d[FEATURES.index("kurtosis") - NB] = PAIR_OTHER
    protos[1, NB:] += d
    protos[2, NB:] -= d
    v = rng.normal(0, 1, len(FEATURES) - NB)
    protos[4, NB:] = 0.5 * protos[3, NB:] + 0.7 * v / np.sqrt((v ** 2).mean())
    protos[4, :NB] = 0.5 * protos[3, :NB] + lo @ rng.normal(0, 0.5, 3)
    protos[:, :NB] -= protos[:, :NB].mean(axis=1, keepdims=True)  # the conditions' shapes, at a common level
    protos[1, :NB] += PAIR_LEVEL               # ... but for the pair's impact level
    protos[2, :NB] -= PAIR_LEVEL
    return protos


def pass_level(x):
    """The impact level a pass's speed and axle load put on every band."""
    return LEVEL_SPEED * x[FEATURES.index("speed_kmh")] + LEVEL_LOAD * x[FEATURES.index("axle_load_t")]


def relative_bands(x):
    """The pipeline's band stage (the case's spectrum.relative_levels), restated: each band re the pass's mean."""
    x = np.array(x, dtype=np.float64)
    x[..., :NB] -= x[..., :NB].mean(axis=-1, keepdims=True)
    return x


def draw(rng, lo, scale_f, scale_own):
    """A vector over FEATURES: the bands through the shared factors plus their own part, the rest iid."""
    x = rng.normal(0, 1, len(FEATURES))
    f = rng.normal(0, 1, 3) * np.asarray(BAND_FACTORS) * scale_f
    x[:NB] = lo @ f + scale_own * x[:NB]
    return x


def season(seed, allowed, year):
    rng = np.random.default_rng(seed)
    protos = prototypes()
    lo = band_loadings()
    prev = np.array([PREVALENCE[s] for s in allowed])
    prev = prev / prev.sum()
    shift = np.zeros(len(FEATURES))
    for name, v in SEASON_SHIFT.get(year, {}).items():
        shift[FEATURES.index(name)] = v
    files = {}
    for site, code in SITES.items():
        site_off = 0.3 * draw(rng, lo, 1.0, 0.3)
        site_off[FEATURES.index("noise_floor")] += NOISE_FLOOR_SITE.get(site, 0.0)
        irng = np.random.default_rng([seed, len(files)])
        rows = []
        for w in range(WAGONS):
            wagon = f"{code}-{w + 1:02d}"
            wagon_off = 0.5 * draw(rng, lo, 1.0, 0.3)
            phase = rng.integers(0, 5)
            t = 0
            noise = draw(rng, lo, 1.0, BAND_OWN)
            while t < PASSES:
                state = allowed[rng.choice(len(prev), p=prev)]
                length = 1 + rng.geometric(1 / 10)
                for _ in range(length):
                    if t >= PASSES:
                        break
                    noise = 0.6 * noise + 0.8 * draw(rng, lo, 1.0, BAND_OWN)
                    x = site_off + wagon_off + protos[state] + noise + shift
                    x[:NB] += pass_level(x) - pass_level(shift)  # each year's dB reference: that year's mean pass
                    hour = (t * 5 + phase) % (PASSES * 5)
                    source = "shop" if rng.random() < SHOP_RATE[state] else "wayside"
                    label = state
                    if source == "wayside" and state != 0 and rng.random() < WAYSIDE_WRONG:
                        label = int(rng.choice([c for c in allowed if c != state]))
                    if source == "shop" and state in (1, 2) and irng.random() < SHOP_SWAP:
                        label = 3 - state
                    rows.append((hour, wagon, CONDITIONS[label], source, x, state))
                    t += 1
        rows.sort(key=lambda r: (r[0], r[1]))
        files[site] = [(f"{code}{year % 100}-{i:05d}", wagon, hour, lab, src, x, state)
                       for i, (hour, wagon, lab, src, x, state) in enumerate(rows)]
    return files


def to_arrays(files):
    """(features with per-wagon changes, labels, weights) in wagon, time order, in float64: the pretraining's
    featurisation (last year's pipeline, raw bands; a wagon's first pass takes its next pass's change)."""
    xs, ys, ws = [], [], []
    for rows in files.values():
        by_wagon = {}
        for r in rows:
            by_wagon.setdefault(r[1], []).append(r)
        for wagon in sorted(by_wagon):
            rs = sorted(by_wagon[wagon], key=lambda r: r[2])
            x = np.stack([np.asarray(r[5], dtype=np.float64).round(4) for r in rs])
            d = np.diff(x, axis=0)
            d = np.vstack([d[:1], d])
            xs.append(np.hstack([x, d]))
            ys += [CONDITIONS.index(r[3]) for r in rs]
            ws += [1.0 if r[4] == "shop" else 0.3 for r in rs]
    return np.vstack(xs), np.array(ys), np.array(ws)


def write_csv(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        f.write("pass_id,wagon,pass_h,condition,label_source," + ",".join(FEATURES) + "\n")
        for pid, wagon, hour, lab, src, x, _ in rows:
            cells = [f"{v:.4f}" for v in x]
            f.write(f"{pid},{wagon},{hour},{lab},{src}," + ",".join(cells) + "\n")


def write_reinspection(path, files, seed=7):
    """The June re-inspection: a share of the flat/oval calls (shop or wayside), the exported call beside the second."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as f:
        f.write("pass_id,condition,reinspected\n")
        for rows in files.values():
            for pid, wagon, hour, lab, src, x, state in rows:
                if lab in ("flat_spot", "out_of_round") and rng.random() < REINSPECTED:
                    f.write(f"{pid},{lab},{CONDITIONS[state]}\n")


def pretrain(files, out):
    x, y, w = to_arrays(files)
    mean, std = x.mean(0), x.std(0)
    xt = torch.tensor((x - mean) / std, dtype=torch.float32)
    yt, wt = torch.tensor(y), torch.tensor(w, dtype=torch.float32)
    torch.manual_seed(2025)
    sys.path.insert(0, str(CASE))
    from models.wheelnet import Backbone  # the case's own architecture
    backbone = Backbone(x.shape[1], 96, 64, 0.1)
    head = nn.Linear(64, 4)
    opt = torch.optim.AdamW(list(backbone.parameters()) + list(head.parameters()), lr=2e-3, weight_decay=1e-2)
    g = torch.Generator().manual_seed(0)
    for epoch in range(12):
        perm = torch.randperm(len(xt), generator=g)
        for i in range(0, len(xt), 64):
            b = perm[i:i + 64]
            loss = nn.functional.cross_entropy(head(backbone(xt[b])), yt[b], reduction="none")
            loss = (loss * wt[b]).sum() / wt[b].sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
    backbone.eval()
    with torch.no_grad():
        acc = (head(backbone(xt)).argmax(1) == yt).float().mean().item()
    print(f"pretraining accuracy (2025, 4 conditions) {acc:.3f}")
    arrays = {f"backbone.{k}": v.numpy() for k, v in backbone.state_dict().items()}
    arrays.update({f"head.{k}": v.numpy() for k, v in head.state_dict().items()})
    arrays["input_mean"] = mean.astype(np.float32)
    arrays["input_std"] = std.astype(np.float32)
    arrays["classes"] = np.array(CONDITIONS[:4])
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, **arrays)


CASE = Path("cases/wip_frontier_case_17")


def main(case_dir):
    global CASE
    case = CASE = Path(case_dir).resolve()
    files = season(2026, [0, 1, 2, 3, 4], 2026)
    for site, rows in files.items():
        write_csv(case / "data" / "exports" / f"{site}.csv", rows)
    write_reinspection(case / "data" / "reinspection.csv", files)
    pretrain(season(2025, [0, 1, 2, 3], 2025), case / "pretrained" / "wheelnet_2025.npz")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cases/wip_frontier_case_17")
