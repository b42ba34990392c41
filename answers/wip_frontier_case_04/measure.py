"""wip_frontier_case_04, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-wip_frontier_case_04-7f1404a1a0ea4438

Calls the agent's code only through config.load_config("configs/spring26.toml", [train.seed=s]),
train.run(cfg) (the README's `python train.py`) and train.load_corpus(cfg). A global forward pre-hook finds the model at its first
training forward and records its next training call (a packed batch of 16 rows of 64 tokens, with whatever
layout arguments the agent's code passes); after training, the trained model is run on that batch as
recorded and with every syllable token before each row's last bird token replaced by another syllable, and
the largest output change from that bird token on is recorded (families/packed_document_mask.py).

Layer B's mechanism: the per-syllable features the examples of train.load_corpus(cfg) carry (Example.feats,
per input position; its first two columns are the predicted syllable's length and the gap before it, in
seconds, as corpus.syllable_features derives them from the tensor exports.read_booth builds) are compared
with the same quantities recomputed here from the raw exports in float64 (integer sample indices at 48 kHz,
differences taken in integers). Each example is matched to the raw bouts with the same bird and syllable sequence (the
closest one when several share them); the share of syllables whose length and gap both lie within 0.5 ms of
the recomputation is recorded (any correct form: 1.0 up to float32 rounding of small values, about 1e-8 s;
broken: most syllables are off by several ms, because the absolute sample indices pass through float32).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.packed_document_mask import run_probed  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/spring26.toml"  # train.py's default --config
# Token ids of the case's vocabulary (vocab.Vocab over the exports): 12 syllables are 1..12, the 10 birds'
# tokens 13..22 (each bout starts with its bird's token), the two song contexts 23..24.
PROBE = {"content_ids": (1, 12), "start_ids": (13, 22)}


SYL = "abcdefghijkl"
SAMPLE_RATE = 48_000
TOL = 0.5e-3


def bouts_from_exports(export_dir):
    """The bouts recomputed from the raw exports: per (booth, session), each syllable goes to the detector
    window with start <= onset < end (integers). -> {(bird, syllable ids): [float64 array [n, 2] of
    (length, gap before) in seconds, ...]}"""
    import csv
    from collections import defaultdict

    import numpy as np

    out = defaultdict(list)
    for path in sorted(Path(export_dir).glob("booth_*.csv")):
        booth = path.stem.split("_")[-1]
        wins = defaultdict(list)
        with open(path, newline="") as fh:
            for r in csv.DictReader(fh):
                wins[int(r["session"])].append((int(r["start"]), int(r["end"]), r["bird"], []))
        with open(path.with_name(f"syllables_{booth}.csv"), newline="") as fh:
            for r in sorted(csv.DictReader(fh), key=lambda r: (int(r["session"]), int(r["onset"]))):
                t = int(r["onset"])
                for start, end, _, members in wins[int(r["session"])]:
                    if start <= t < end:
                        members.append((SYL.index(r["syllable"]) + 1, t, int(r["offset"])))
                        break
        for ws in wins.values():
            for _, _, bird, m in ws:
                if not m:
                    continue
                on = np.array([x[1] for x in m], dtype=np.int64)
                off = np.array([x[2] for x in m], dtype=np.int64)
                gap = np.concatenate([[0], on[1:] - off[:-1]])
                feats = np.stack([off - on, gap], 1).astype(np.float64) / SAMPLE_RATE
                out[bird, tuple(x[0] for x in m)].append(feats)
    return out


def timing_match(cfg, train, export_dir):
    """(syllables compared, share within TOL) over every example train.load_corpus builds."""
    import numpy as np

    _, train_ex, val_ex = require(train, "load_corpus")(cfg)
    lo, hi = PROBE["content_ids"]
    raw = bouts_from_exports(export_dir)
    n = good = 0
    for e in list(train_ex) + list(val_ex):
        ids = [int(i) for i in e.ids]
        syl = tuple(i for i in ids if lo <= i <= hi)
        f = getattr(e, "feats", None)
        f = getattr(e, "timing", None) if f is None else f
        f = np.asarray(f.detach().cpu() if hasattr(f, "detach") else f, dtype=np.float64)
        tm = f.reshape(len(f), -1)[-len(syl):, :2]
        cands = raw.get((e.bird, syl), [])
        best = 0
        for c in cands:
            ok = (np.abs(tm - c) <= TOL).all(1)
            ok[0] = abs(tm[0, 0] - c[0, 0]) <= TOL  # a bout's first gap is a convention
            best = max(best, int(ok.sum()))
        n += len(syl)
        good += best
    return n, good / max(1, n)


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    load_config = require(config, "load_config")
    run_probed(rec, seed, load_config, require(train, "run"), CONFIG, PROBE)
    cfg = load_config(CONFIG, [f"train.seed={seed}"])
    n, share = timing_match(cfg, train, Path.cwd() / cfg.data.export_dir)
    rec.put("syllables_compared", n)
    rec.put("timing_within_half_ms", share)


measure_main(measure)
