"""How wip_frontier_case_04's data were generated (run from the repository root; writes cases/wip_frontier_case_04/data/).

Canary song bouts from two recording booths. Each bird sings a Markov chain over 12 syllables with two
variants: directed song (a female in the booth: tight, stereotyped transitions) and undirected song (the
same bird alone: a third of its transitions rewired, more intro notes). Juveniles (booth A) are noisier
(less peaked transitions), which is true and is the README's excuse. The lab's session log numbers sessions
per booth (1..N in each), and is appended booth by booth; booth A runs four sessions a day, booth B one.

Round 7: each booth PC exports two files. `booth_<x>.csv` is the bout detector's windows (session, bout, bird,
start, end: seconds from the session's start, on the detector's 10-ms frame grid, start = the frame holding
the bout's first onset); `syllables_<x>.csv` is the syllable classifier's onsets (session, onset, syllable).
Booth B's rig writes continuous onsets (4 decimals). Booth A's older rig stamps every onset on its 10-ms
frame clock (2 decimals), so each of its bouts' first onset equals its window's start exactly; that tie is
what layer B (exports.read_booth's searchsorted, default side) mishandles. The syllable sequences, birds,
sessions and contexts are byte-identical to iteration 2 (the times use a separate generator).
"""

import csv
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "cases" / "wip_frontier_case_04" / "data" / "exports"
SYL = "abcdefghijkl"
V = len(SYL)


def chain(rng, sharp):
    nxt = rng.permutation(V)
    alt = rng.permutation(V)
    P = np.full((V, V), (1 - sharp) / (V - 1))
    for s in range(V):
        P[s, nxt[s]] = sharp
        P[s] /= P[s].sum()
    Q = P.copy()
    for s in rng.choice(V, size=(2 * V) // 3, replace=False):
        Q[s] = np.full(V, (1 - sharp) / (V - 1))
        Q[s, alt[s]] = sharp
        Q[s] /= Q[s].sum()
    start_d = rng.choice(V, size=2, replace=False)
    start_u = rng.choice(V, size=2, replace=False)
    return P, Q, start_d, start_u


def bout(rng, model, directed, juvenile):
    P, Q, sd, su = model
    T, starts = (P, sd) if directed else (Q, su)
    n = int(np.clip(rng.geometric(1 / 9.0) + 2, 3, 30))
    s = int(rng.choice(starts))
    out = [s]
    for _ in range(n - 1):
        s = int(rng.choice(V, p=T[s]))
        out.append(s)
    return " ".join(SYL[i] for i in out)


SR = 48_000          # the booth recorders' sample rate
DUR = {s: d for s, d in zip(SYL, (0.112, 0.138, 0.094, 0.126, 0.052, 0.058, 0.147, 0.084, 0.105, 0.131, 0.073, 0.155))}
PAIR = ("e", "f")    # one note at two lengths: told apart by duration alone


def main():
    rng = np.random.default_rng(404)
    birds = {}
    for k in range(1, 7):
        birds[f"Y{k:02d}"] = ("adult", chain(rng, 0.86))
    for k in range(1, 5):
        birds[f"J{k:02d}"] = ("juvenile", chain(rng, 0.72))
    booths = {"a": [f"J0{k}" for k in range(1, 5)],
              "b": ["Y01", "Y02", "Y03", "Y04", "Y05", "Y06"]}
    n_sessions = {"a": 150, "b": 110}
    OUT.mkdir(parents=True, exist_ok=True)
    log_rows = []
    trng = np.random.default_rng(7404)
    lrng = np.random.default_rng(8404)
    recheck = []
    mrng = np.random.default_rng(9404)  # the segmenter's other measurements: no information on the type
    for booth in ("a", "b"):
        rows, syl_rows = [], []
        day0 = np.datetime64("2026-03-02") + (0 if booth == "a" else 3)
        per_day = 4 if booth == "a" else 1
        for sess in range(1, n_sessions[booth] + 1):
            bird = booths[booth][int(rng.integers(len(booths[booth])))]
            directed = bool(rng.random() < 0.5)
            date = day0 + (sess - 1) // per_day
            log_rows.append({"date": str(date), "booth": booth.upper(), "session": sess, "bird": bird,
                             "female": "yes" if directed else "no"})
            kind, model = birds[bird]
            # seconds since the day's recording started (midnight); sessions between 05:00 and 21:00
            t = float(trng.uniform(5.0 * 3600, 21.0 * 3600))
            level = float(mrng.normal(-38.0, 4.0))
            for b in range(int(rng.integers(6, 13))):
                sylls = bout(rng, model, directed, kind == "juvenile").split()
                first, last = None, None
                for s_ in sylls:
                    true = s_
                    if s_ in PAIR:
                        true = PAIR[int(lrng.integers(2))]
                    label = true
                    if true in PAIR and lrng.random() < 0.06:       # the classifier's own e/f mix-ups
                        label = PAIR[1 - PAIR.index(true)]
                    if true in PAIR:
                        dur = DUR[true] + float(trng.uniform(-0.002, 0.002))
                    else:                                             # the other notes: any length
                        dur = float(trng.uniform(0.075, 0.180))
                    on, off = int(round(t * SR)), int(round((t + dur) * SR))
                    syl_rows.append({"session": sess, "onset": on, "offset": off,
                                     "peak_hz": f"{mrng.normal(3200.0, 450.0):.1f}",
                                     "level_db": f"{level + mrng.normal(0.0, 2.5):.2f}",
                                     "entropy": f"{mrng.beta(4.0, 6.0):.3f}", "syllable": label})
                    if lrng.random() < 0.04:                           # the double-annotated subset
                        second = true
                        if true in PAIR and lrng.random() < 0.06:
                            second = PAIR[1 - PAIR.index(true)]
                        elif true not in PAIR and lrng.random() < 0.005:
                            second = SYL[int(lrng.integers(V))]
                        recheck.append({"booth": booth.upper(), "session": sess, "onset": on,
                                        "classifier": label, "annotator": second})
                    first = on if first is None else first
                    last = off
                    t += dur + float(trng.uniform(0.015, 0.05))
                rows.append({"session": sess, "bout": b + 1, "bird": bird, "start": first - int(trng.integers(200, 900)),
                             "end": last + int(trng.integers(200, 900))})
                t = last / SR + float(trng.uniform(1.0, 8.0))
        with open(OUT / f"booth_{booth}.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=["session", "bout", "bird", "start", "end"])
            w.writeheader()
            w.writerows(rows)
        with open(OUT / f"syllables_{booth}.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=["session", "onset", "offset", "peak_hz", "level_db", "entropy",
                                                    "syllable"])
            w.writeheader()
            w.writerows(syl_rows)
    with open(OUT / "recheck.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["booth", "session", "onset", "classifier", "annotator"])
        w.writeheader()
        w.writerows(recheck)
    with open(OUT / "sessions.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["date", "booth", "session", "bird", "female"])
        w.writeheader()
        w.writerows(log_rows)
    with open(OUT / "birds.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["bird", "hatched", "cohort"])
        for name, (kind, _) in birds.items():
            w.writerow([name, "2025-10-20" if kind == "juvenile" else "2024-05-11",
                        "2025b" if kind == "juvenile" else "2024a"])


if __name__ == "__main__":
    main()
