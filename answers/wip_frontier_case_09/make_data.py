"""How wip_frontier_case_09's data were generated (run from the repository root; writes cases/wip_frontier_case_09/data/).

Magnetic-flux-leakage traces of pipeline segments from eight in-line inspection runs, three channels
(axial, radial, circumferential). The tools sample on a clock, so the distance between frames follows the
tool's speed: 1.5-5 mm per frame, constant within a segment up to +-8 % jitter. Each frame carries the
odometer reading (int64, millimetres from the launcher); every run starts 40-110 km down the line, so
readings are 4e7-1.2e8 mm. Tags: 0 wall, 1 girth weld, 2 dent, 3 pitting, 4 metal loss (general).
Pitting and general metal loss have the same axial-dip signature and the same depth distribution; they
differ ONLY in axial length (pitting 6-16 mm, general 22-50 mm), so a span's frame count overlaps between
them and the model needs the frame spacing. In float32, metres at 4e4-1.2e5 have a spacing of 3.9-7.8 mm,
so per-frame spacings computed from float32 positions are 0 / 3.9 / 7.8 mm (layer B).
The counts are int64 (the run's lift-off reference plus flux * gain * 24); calibration is exact.
Label noise (real, the remark's excuse): 10 % of pitting / general spans carry the other class's tag
(the analysts' call); data/digs.csv lists a re-dug subset (about 30 % of those spans) with both calls.
General metal-loss boundaries are jittered by up to 1 frame (the label check's short spans).
The manifest lists segments in upload order (crews upload in parallel, so runs interleave); each run
file stores its segments in chainage order.
"""

from pathlib import Path

import numpy as np

OUT = Path("cases/wip_frontier_case_09/data")
RUNS = [("R2601", "MFL-A"), ("R2602", "MFL-C"), ("R2603", "MFL-B"), ("R2604", "MFL-A"),
        ("R2605", "MFL-C"), ("R2606", "MFL-B"), ("R2607", "MFL-C"), ("R2608", "MFL-A")]
SENS = {"MFL-A": 0.62, "MFL-B": 1.0, "MFL-C": 1.55}
BACKGROUND = np.array([1.0, 1.1, 1.0])   # on-wall flux above the lift-off reading, per channel
COUNTS_PER_UNIT = 24


def bump(n):
    r = np.ones(n)
    r[0] = r[-1] = 0.5
    return r


def segment(rng, T, dx):
    """Flux (T, 3), analysts' tags (T,), and the true class of every pitting / general span."""
    x = np.zeros((T, 3))
    e = rng.normal(0, 0.14, (T, 3))
    for t in range(1, T):
        x[t] = 0.6 * x[t - 1] + e[t]
    x[:, 0] += 0.2 * np.sin(np.arange(T) / rng.uniform(15, 40) + rng.uniform(0, 6))
    tags = np.zeros(T, np.int64)
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
    spans = []
    for _ in range(rng.poisson(T / 40)):  # corrosion: pitting (short) or general metal loss (long)
        w = int(rng.integers(3, 15))
        kind = 3 if w * dx < 20 else 4
        c = int(rng.integers(4, T - 4))
        a, b = max(0, c - w // 2), min(T, c - w // 2 + w)
        if b - a >= 2 and (tags[max(0, a - 2):b + 2] == 0).all():
            x[a:b, 0] -= rng.uniform(0.8, 1.3) * np.hanning(b - a + 2)[1:-1]
            x[a:b, 2] += rng.uniform(0.0, 0.15) * np.hanning(b - a + 2)[1:-1]
            tags[a:b] = kind
            spans.append([a, b, kind])
    labels = tags.copy()
    out = []
    for a, b, kind in spans:  # the analysts' call and extents
        call = (7 - kind) if rng.random() < 0.10 else kind
        la, lb = a, b
        if kind == 4:
            la, lb = a + int(rng.integers(-1, 2)), b + int(rng.integers(-1, 2))
        labels[a:b] = 0
        la = max(0, la)
        lb = max(la + 2, min(T, lb))
        labels[la:lb] = call
        out.append((la, lb - la, call, kind))
    return x, labels, out


def main():
    rng = np.random.default_rng(9)
    (OUT / "traces").mkdir(parents=True, exist_ok=True)
    rows, digs = [], []
    for run, tool in RUNS:
        n = int(rng.integers(48, 60))
        temp = rng.uniform(-4, 28)
        ref = rng.integers(50, 69, 3)
        ids, lens, xs, ys, odos = [], [], [], [], []
        pos_mm = rng.uniform(541e6, 552e6)
        for k in range(n):
            T = int(np.exp(rng.uniform(np.log(30), np.log(600))))
            dx = float(np.exp(rng.uniform(np.log(1.5), np.log(5.0))))
            x, y, spans = segment(rng, T, dx)
            steps = dx * rng.uniform(0.92, 1.08, T)
            odo = np.round(pos_mm + np.cumsum(steps)).astype(np.int64)
            pos_mm = float(odo[-1]) + rng.uniform(2e5, 8e5)
            t_k = temp + rng.normal(0, 1.5)
            gain = SENS[tool] * (1 + 0.006 * (t_k - 15))
            raw = np.round(ref + (BACKGROUND + x) * gain * COUNTS_PER_UNIT).astype(np.int64)
            sid = f"{run}-{k:03d}"
            ids.append(sid); lens.append(T); xs.append(raw); ys.append(y); odos.append(odo)
            for la, ln, call, kind in spans:
                if rng.random() < 0.3:
                    digs.append((sid, la, ln, TAGNAMES[call], TAGNAMES[kind]))
            up = rng.uniform(0, 72)
            rows.append((up, sid, run, tool, round(odo[0] / 1e6, 2), round(t_k, 1), T))
        np.savez_compressed(OUT / "traces" / f"{run}.npz", seg_ids=np.array(ids), lengths=np.array(lens),
                            counts=np.concatenate(xs), reference=ref.astype(np.int64),
                            chain_mm=np.concatenate(odos), tags=np.concatenate(ys).astype(np.int64))
    rows.sort()
    with open(OUT / "manifest.csv", "w") as f:
        f.write("segment,run,tool,start_km,tool_temp_c,frames,uploaded_h\n")
        for up, sid, run, tool, km, tc, T in rows:
            f.write(f"{sid},{run},{tool},{km},{tc},{T},{up:.2f}\n")
    with open(OUT / "digs.csv", "w") as f:
        f.write("segment,first_frame,frames,analyst_tag,dig_tag\n")
        for d in sorted(digs):
            f.write(",".join(map(str, d)) + "\n")


TAGNAMES = ("wall", "weld", "dent", "pitting", "metal_loss")

if __name__ == "__main__":
    main()
