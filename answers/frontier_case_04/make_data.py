"""How frontier_case_04's data were generated (run from the repository root; writes cases/frontier_case_04/data/).

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

OUT = Path(__file__).resolve().parents[2] / "cases" / "frontier_case_04" / "data" / "exports"
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
    for booth in ("a", "b"):
        rows, syl_rows = [], []
        day0 = np.datetime64("2026-03-02") + (0 if booth == "a" else 3)
        per_day = 4 if booth == "a" else 1   # the juveniles' booth runs four short sessions a day
        for sess in range(1, n_sessions[booth] + 1):
            bird = booths[booth][int(rng.integers(len(booths[booth])))]
            directed = bool(rng.random() < 0.5)
            date = day0 + (sess - 1) // per_day
            log_rows.append({"date": str(date), "booth": booth.upper(), "session": sess, "bird": bird,
                             "female": "yes" if directed else "no"})
            kind, model = birds[bird]
            t = float(trng.uniform(2.0, 6.0))
            for b in range(int(rng.integers(6, 13))):
                sylls = bout(rng, model, directed, kind == "juvenile").split()
                frames, onsets = [], []
                for s_ in sylls:
                    frame = int(np.floor(t * 100))
                    if booth == "a":
                        text = f"{frame / 100:.2f}"          # the frame clock
                    else:
                        text = f"{t:.4f}"
                        if float(text) == frame / 100:      # keep the continuous rig off the grid
                            text = f"{t + 0.0002:.4f}"
                    frames.append(frame)
                    onsets.append(text)
                    syl_rows.append({"session": sess, "onset": text, "syllable": s_})
                    t += float(trng.uniform(0.06, 0.15))     # syllable
                    t_end = t
                    t += float(trng.uniform(0.015, 0.05))    # inter-syllable gap
                rows.append({"session": sess, "bout": b + 1, "bird": bird, "start": f"{frames[0] / 100:.2f}",
                             "end": f"{int(np.ceil(t_end * 100)) / 100:.2f}"})
                t = t_end + float(trng.uniform(1.0, 8.0))    # silence between bouts
        with open(OUT / f"booth_{booth}.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=["session", "bout", "bird", "start", "end"])
            w.writeheader()
            w.writerows(rows)
        with open(OUT / f"syllables_{booth}.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=["session", "onset", "syllable"])
            w.writeheader()
            w.writerows(syl_rows)
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
