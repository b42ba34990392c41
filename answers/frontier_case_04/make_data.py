"""How frontier_case_04's data were generated (run from the repository root; writes cases/frontier_case_04/data/).

Canary song bouts from two recording booths. Each bird sings a Markov chain over 12 syllables with two
variants: directed song (a female in the booth: tight, stereotyped transitions) and undirected song (the
same bird alone: a third of its transitions rewired, more intro notes). Juveniles (booth A) are noisier
(less peaked transitions). The lab's session log numbers sessions per booth (1..N in each).

Round 10: each booth PC exports two files. `booth_<x>.csv` is the bout detector's windows (session, bout, bird,
start, end: seconds from the session's recording start, 4 decimals); `syllables_<x>.csv` is the segmenter's
rows (session, onset, offset on the same clock, then the energy in six bands, dB re the recorder's full
scale) with the classifier's label. Iteration 7: every type has its own spectral shape (one downsweep template
plus a per-type tilt, N(0, 1.3) dB per band, zero-mean over the bands), so the shares carry the type for most
pairs; f's shape is e's plus a slight difference (N(0, 0.38) dB), so the shares part e from f only partly. A
syllable's level is the session's microphone gain (N(-40, 6) dB: the perch distance differs between sessions,
true and large) + a small per-bout drift + the type's loudness + jitter. Every type's loudness is random
(N(0, 2.5) dB) except the pair e / f: one context class (the chain emits one of the two at random), e sung
2 dB below the bout's typical note and f 2 dB above, and e 52.5 ms / f 57.5 ms long (sd 2.5 ms). The
classifier mislabels 14% of the pair and the re-check's annotator, independently, 20% (iteration 10; 14% in
iterations 7-9, about 24% of the pair's re-check rows disputed; now about 28%, the residual e/f confusion once
A and the short-note threshold are fixed). Only the annotator column of recheck.csv depends on that rate: its
draws come from their own generator, and the shared generator's draw is kept, so every other export is byte-identical. Layer B (corpus.syllable_features: log shares of each syllable's own band
total) erases the level. The syllable sequences, birds, sessions and the re-check sample's rows are the same
draws as iteration 5-6 (their generators are unchanged); times, bands and shapes use separate generators.
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


SR = 48_000          # the booth recorders' sample rate
PAIR = ("e", "f")    # one note: e a little shorter and softer, f a little longer and louder
PAIR_DUR = {"e": 0.0525, "f": 0.0575}
PAIR_LEVEL = {"e": -2.0, "f": 2.0}
BANDS = ("band_1k", "band_2k", "band_3k", "band_4k", "band_6k", "band_8k")
TEMPLATE = np.array([-13.0, -5.0, -1.0, -3.0, -9.0, -17.0])   # the downsweep's energy per band, dB
PAIR_NOISE = 0.14    # the classifier's e/f mix-ups
ANNOT_NOISE = 0.20   # the re-check annotator's e/f mix-ups (iteration 10; 0.14 before)


def type_shapes():
    """Each type's spectral shape: the template plus a per-type tilt (N(0, 1.3) dB per band, zero-mean over the
    bands, so shape only); f is e's shape plus a slight difference (N(0, 0.38) dB)."""
    srng = np.random.default_rng(10404)
    out = {}
    for s_ in SYL:
        d = srng.normal(0.0, 1.3, size=len(TEMPLATE))
        out[s_] = TEMPLATE + d - d.mean()
    d = srng.normal(0.0, 0.38, size=len(TEMPLATE))
    out["f"] = out["e"] + d - d.mean()
    return out


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
    mrng = np.random.default_rng(9404)  # the segmenter's other measurements
    arng = np.random.default_rng(12404)  # the re-check annotator's e/f mix-ups (iteration 10)
    shapes = type_shapes()
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
            # seconds since the session's recording started
            t = float(trng.uniform(2.0, 20.0))
            gain = float(mrng.normal(-40.0, 6.0))       # microphone distance: the whole session
            for b in range(int(rng.integers(6, 13))):
                sylls = bout(rng, model, directed, kind == "juvenile").split()
                first, last = None, None
                drift = float(mrng.normal(0.0, 1.0))    # the bird moves a little between bouts
                for s_ in sylls:
                    true = s_
                    if s_ in PAIR:
                        true = PAIR[int(lrng.integers(2))]
                    label = true
                    if true in PAIR and lrng.random() < PAIR_NOISE:  # the classifier's own e/f mix-ups
                        label = PAIR[1 - PAIR.index(true)]
                    if true in PAIR:
                        dur = PAIR_DUR[true] + float(trng.normal(0.0, 0.0025))
                        loud = PAIR_LEVEL[true]
                    else:                                             # the other notes: any length, any level
                        dur = float(trng.uniform(0.075, 0.180))
                        loud = float(mrng.normal(0.0, 2.5))
                    level = gain + drift + loud + float(mrng.normal(0.0, 0.8))
                    bands = level + shapes[true] + mrng.normal(0.0, 1.5, size=len(TEMPLATE))
                    on, off = round(t, 4), round(t + dur, 4)
                    row = {"session": sess, "onset": f"{on:.4f}", "offset": f"{off:.4f}"}
                    row.update({name: f"{v:.2f}" for name, v in zip(BANDS, bands)})
                    row["syllable"] = label
                    syl_rows.append(row)
                    if lrng.random() < 0.04:                           # the double-annotated subset
                        second = true
                        if true in PAIR:
                            lrng.random()  # iterations 7-9 drew the annotator's mix-up here; kept, so every
                            if arng.random() < ANNOT_NOISE:  # later draw (labels, sample rows) is the same
                                second = PAIR[1 - PAIR.index(true)]
                        elif lrng.random() < 0.005:
                            second = SYL[int(lrng.integers(V))]
                        recheck.append({"booth": booth.upper(), "session": sess, "onset": f"{on:.4f}",
                                        "classifier": label, "annotator": second})
                    first = on if first is None else first
                    last = t + dur
                    t += dur + float(trng.uniform(0.015, 0.05))
                rows.append({"session": sess, "bout": b + 1, "bird": bird,
                             "start": f"{first - float(trng.uniform(0.005, 0.02)):.4f}",
                             "end": f"{last + float(trng.uniform(0.005, 0.02)):.4f}"})
                t = last + float(trng.uniform(1.0, 8.0))
        with open(OUT / f"booth_{booth}.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=["session", "bout", "bird", "start", "end"])
            w.writeheader()
            w.writerows(rows)
        with open(OUT / f"syllables_{booth}.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=["session", "onset", "offset", *BANDS, "syllable"])
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
