"""How frontier_case_04's data were generated (run from the repository root; writes cases/frontier_case_04/data/).

Canary song bouts from two recording booths. Each bird sings a Markov chain over 12 syllables with two
variants: directed song (a female in the booth: tight, stereotyped transitions) and undirected song (the
same bird alone: a third of its transitions rewired, more intro notes). Juveniles (booth A) are noisier
(less peaked transitions), which is true and is the README's excuse. The lab's session log numbers sessions
per booth (1..N in each), and is appended booth by booth; booth A runs four sessions a day, booth B one; the bout exports carry booth, session and bird.
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
    for booth in ("a", "b"):
        rows = []
        day0 = np.datetime64("2026-03-02") + (0 if booth == "a" else 3)
        per_day = 4 if booth == "a" else 1   # the juveniles' booth runs four short sessions a day
        for sess in range(1, n_sessions[booth] + 1):
            bird = booths[booth][int(rng.integers(len(booths[booth])))]
            directed = bool(rng.random() < 0.5)
            date = day0 + (sess - 1) // per_day
            log_rows.append({"date": str(date), "booth": booth.upper(), "session": sess, "bird": bird,
                             "female": "yes" if directed else "no"})
            kind, model = birds[bird]
            for b in range(int(rng.integers(6, 13))):
                rows.append({"session": sess, "bout": b + 1, "bird": bird,
                             "syllables": bout(rng, model, directed, kind == "juvenile")})
        with open(OUT / f"booth_{booth}.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=["session", "bout", "bird", "syllables"])
            w.writeheader()
            w.writerows(rows)
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
