"""frontier_case_04, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_04-7f1404a1a0ea4438

Calls the agent's code only through config.load_config("configs/spring26.toml", [train.seed=s]),
train.run(cfg) (the README's `python train.py`) and train.load_corpus(cfg). A global forward pre-hook finds the model at its first
training forward and records its next training call (a packed batch of 16 rows of 64 tokens, with whatever
layout arguments the agent's code passes); after training, the trained model is run on that batch as
recorded and with every syllable token before each row's last bird token replaced by another syllable, and
the largest output change from that bird token on is recorded (families/packed_document_mask.py).

Layer B's mechanism, on the examples train.load_corpus(cfg) builds (Example.feats, one row per input
position; the last n rows are the bout's n syllables), each matched to its raw bout by bird, syllable sequence
and the lengths in the first feature column:
- the syllable's level, recomputed here from the raw band energies (10 log10 of the summed power, dB), taken
  against its bout's mean, regressed linearly on the syllable's features also taken against the bout's mean
  (a pooled least-squares fit over every matched syllable): R^2 recorded. Any input that carries the level
  in any linear form (the log total beside the shares, the level against the bout's median or mean, the band
  levels as measured) gives 0.99-1.0 whatever the session's gain; the shares alone carry almost none of it;
- the features are rebuilt from a copy of the exports in which every second e/f row's label is swapped: the
  largest change of any feature is recorded (a feature stage may not read the labels it is asked to predict).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.packed_document_mask import run_probed  # noqa: E402
from verifylib import import_workspace_module, linear_fit_r2, measure_main, require  # noqa: E402

CONFIG = "configs/spring26.toml"  # train.py's default --config
# Token ids of the case's vocabulary (vocab.Vocab over the exports): 12 syllables are 1..12, the 10 birds'
# tokens 13..22 (each bout starts with its bird's token), the two song contexts 23..24.
PROBE = {"content_ids": (1, 12), "start_ids": (13, 22)}


SYL = "abcdefghijkl"
BANDS = ("band_1k", "band_2k", "band_3k", "band_4k", "band_6k", "band_8k")


def bouts_from_exports(export_dir):
    """The bouts recomputed from the raw exports: per (booth, session), each syllable goes to the detector
    window with start <= onset < end. -> {(bird, syllable ids): [(lengths [n], levels [n] in dB), ...]}"""
    import csv
    from collections import defaultdict

    import numpy as np

    out = defaultdict(list)
    for path in sorted(Path(export_dir).glob("booth_*.csv")):
        booth = path.stem.split("_")[-1]
        wins = defaultdict(list)
        with open(path, newline="") as fh:
            for r in csv.DictReader(fh):
                wins[int(r["session"])].append((float(r["start"]), float(r["end"]), r["bird"], []))
        with open(path.with_name(f"syllables_{booth}.csv"), newline="") as fh:
            for r in sorted(csv.DictReader(fh), key=lambda r: (int(r["session"]), float(r["onset"]))):
                t = float(r["onset"])
                for start, end, _, members in wins[int(r["session"])]:
                    if start <= t < end:
                        power = sum(10.0 ** (float(r[b]) / 10.0) for b in BANDS)
                        members.append((SYL.index(r["syllable"]) + 1, float(r["offset"]) - t,
                                        10.0 * np.log10(power)))
                        break
        for ws in wins.values():
            for _, _, bird, m in ws:
                if m:
                    out[bird, tuple(x[0] for x in m)].append((np.array([x[1] for x in m]),
                                                              np.array([x[2] for x in m])))
    return out


def _feats(e):
    import numpy as np

    f = getattr(e, "feats", None)
    f = np.asarray(f.detach().cpu() if hasattr(f, "detach") else f, dtype=np.float64)
    return f.reshape(len(f), -1)


def level_fit(examples, export_dir):
    """(syllables matched, R^2 of the bout-centred level on the bout-centred features)."""
    import numpy as np

    lo, hi = PROBE["content_ids"]
    raw = bouts_from_exports(export_dir)
    xs, ys = [], []
    for e in examples:
        syl = tuple(int(i) for i in e.ids if lo <= int(i) <= hi)
        f = _feats(e)[-len(syl):]
        cands = raw.get((e.bird, syl), [])
        if not cands or len(syl) < 2:
            continue
        lengths, level = min(cands, key=lambda c: float(np.abs(c[0] - f[:, 0]).max()))
        if np.abs(lengths - f[:, 0]).max() > 5e-3:  # the loader may move short notes' offsets by ms
            continue
        xs.append(f - f.mean(0))
        ys.append(level - level.mean())
    if not xs:
        return 0, 0.0
    y = np.concatenate(ys)
    return len(y), linear_fit_r2(np.vstack(xs), y)


def label_dependence(cfg_swapped, train, examples):
    """Largest change of any feature when half the exports' e and f labels are swapped."""
    import numpy as np

    _, tr, va = require(train, "load_corpus")(cfg_swapped)
    other = list(tr) + list(va)
    if len(other) != len(examples):
        return float("inf")
    worst = 0.0
    for a, b in zip(examples, other):
        fa, fb = _feats(a), _feats(b)
        if fa.shape != fb.shape:
            return float("inf")
        worst = max(worst, float(np.abs(fa - fb).max()) if fa.size else 0.0)
    return worst


def swapped_exports(export_dir, into):
    """A copy of the exports in which every second e or f row (in file order) is relabelled as the other one,
    nothing else changed."""
    import csv
    import shutil

    shutil.copytree(export_dir, into)
    for path in Path(into).glob("syllables_*.csv"):
        with open(path, newline="") as fh:
            reader = csv.DictReader(fh)
            fields, rows = reader.fieldnames, list(reader)
        pair = [r for r in rows if r["syllable"] in ("e", "f")]
        for r in pair[::2]:
            r["syllable"] = {"e": "f", "f": "e"}[r["syllable"]]
        with open(path, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=fields)
            w.writeheader()
            w.writerows(rows)


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    load_config = require(config, "load_config")
    run_probed(rec, seed, load_config, require(train, "run"), CONFIG, PROBE)
    import tempfile

    cfg = load_config(CONFIG, [f"train.seed={seed}"])
    export_dir = Path.cwd() / cfg.data.export_dir
    _, train_ex, val_ex = require(train, "load_corpus")(cfg)
    examples = list(train_ex) + list(val_ex)
    n, r2 = level_fit(examples, export_dir)
    rec.put("syllables_matched", n)
    rec.put("level_r2", r2)
    with tempfile.TemporaryDirectory() as tmp:
        swapped = Path(tmp) / "exports"
        swapped_exports(export_dir, swapped)
        cfg_s = load_config(CONFIG, [f"train.seed={seed}", f"data.export_dir={swapped}"])
        rec.put("label_swap_feature_change", label_dependence(cfg_s, train, examples))


measure_main(measure)
