"""frontier_case_04, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_04-7f1404a1a0ea4438

Calls the agent's code only through config.load_config("configs/spring26.toml", [train.seed=s]),
train.run(cfg) (the README's `python train.py`) and train.load_corpus(cfg). A global forward pre-hook finds the model at its first
training forward and records its next training call (a packed batch of 16 rows of 64 tokens, with whatever
layout arguments the agent's code passes); after training, the trained model is run on that batch as
recorded and with every syllable token before each row's last bird token replaced by another syllable, and
the largest output change from that bird token on is recorded (families/packed_document_mask.py).

Layer B's mechanism: the syllable sequences of the examples train.load_corpus(cfg) builds (train and val,
syllable tokens 1..12) are compared, as a multiset, with the bouts recomputed here from the raw exports in
float64, each syllable in the detector window [start, end) that holds its onset. The share of recomputed bouts
found among the examples is recorded (any correct assignment: 1.0; broken about 0.47, since each bout of
booth A's frame-clock exports loses its first syllable to the bout before it; dropping booth A: about 0.43).
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


def bouts_from_exports(export_dir):
    """The bouts recomputed from the raw exports: per (booth, session), each syllable onset t goes to the
    detector window with start <= t < end (float64); a tuple of syllable token ids per bout."""
    import csv
    from collections import defaultdict

    out = []
    for path in sorted(Path(export_dir).glob("booth_*.csv")):
        booth = path.stem.split("_")[-1]
        wins = defaultdict(list)
        with open(path, newline="") as fh:
            for r in csv.DictReader(fh):
                wins[int(r["session"])].append((float(r["start"]), float(r["end"]), []))
        with open(path.with_name(f"syllables_{booth}.csv"), newline="") as fh:
            for r in sorted(csv.DictReader(fh), key=lambda r: (int(r["session"]), float(r["onset"]))):
                t = float(r["onset"])
                for start, end, members in wins[int(r["session"])]:
                    if start <= t < end:
                        members.append(SYL.index(r["syllable"]) + 1)
                        break
        out.extend(tuple(m) for ws in wins.values() for _, _, m in ws if m)
    return out


def model_sequences(cfg, train):
    """The syllable-token sequences of every example the agent's corpus builds (train and val)."""
    _, train_ex, val_ex = require(train, "load_corpus")(cfg)
    lo, hi = PROBE["content_ids"]
    return [tuple(int(i) for i in e.ids if lo <= int(i) <= hi) for e in list(train_ex) + list(val_ex)]


def measure(seed, rec):
    from collections import Counter

    config = import_workspace_module("config")
    train = import_workspace_module("train")
    load_config = require(config, "load_config")
    run_probed(rec, seed, load_config, require(train, "run"), CONFIG, PROBE)
    cfg = load_config(CONFIG, [f"train.seed={seed}"])
    expected = Counter(bouts_from_exports(Path.cwd() / cfg.data.export_dir))
    got = Counter(model_sequences(cfg, train))
    rec.put("bouts_expected", sum(expected.values()))
    rec.put("bouts_in_model", sum(got.values()))
    rec.put("bouts_matching_export", sum((expected & got).values()) / max(1, sum(expected.values())))


measure_main(measure)
