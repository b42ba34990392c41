"""case_03, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-c03-2b45b138fd3a07fa

Entry points: train.Config, train.train, train.build_splits, data.make_glyphs (replaced by this
file's own copy of the case's generator, in data and in train), model.MemoryBank.log_probs (called
on the bank train() returns). Seeds 0, 1, 2 at the README's settings (100 classes x 10 images, 20%
validation, Adam lr 1e-3, batch 64, tau 0.04, 60 steps, bank refreshed every 10 steps, logged
every 20); seed 3 on a second data shape (50 classes x 20 images, 30% validation, 40 steps). Per
seed, two trainings:

- run A on the case's data as shipped;
- run B on the same data with only the validation rows' images replaced by other draws of the
  same glyphs (labels and split unchanged; the split's validation rows are found by content in
  what build_splits returns, never through a Subset's attributes).

Recorded, per seed:
- the split build_splits returns (images and labels of both parts, from the items the datasets yield);
- run A: every optimizer step (class, learning rates), the trained encoder's state_dict and its
  parameters at the first optimizer step (the initial encoder), the history train() returns,
  every value passed to backward (the training loss; by step: seed 0 is the README's run, whose
  printed losses the decider compares with them), what the returned normalizer makes of every
  image, and what the returned bank predicts: for the validation images, and for the training
  images with the row ids their dataset yields (query_ids, the leave-self-out path);
- run B: the trained encoder's state_dict, the returned normalizer's output on run A's images,
  and the validation images of B's split (to show the replacement reached the pipeline).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.memory_bank_leak import measure_bank_leak  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

PINNED = {"n_classes": 100, "per_class": 10, "val_frac": 0.2, "dim": 64, "tau": 0.04, "batch_size": 64,
          "steps": 60, "lr": 1e-3, "refresh_every": 10, "log_every": 20}
# seeds 0-2: the README's settings; seed 3: a second data shape (50 classes x 20 images, 30% validation),
# so a fix tied to the default sizes (1000 rows, 200 of them validation) shows.
SETTINGS = {0: PINNED, 1: PINNED, 2: PINNED, 3: {**PINNED, "n_classes": 50, "per_class": 20, "val_frac": 0.3, "steps": 40}}


def measure(seed, rec):
    data = import_workspace_module("data")
    require(data, "make_glyphs")
    model_mod = import_workspace_module("model")
    require(model_mod, "MemoryBank.log_probs")
    train = import_workspace_module("train")
    Config, train_fn, build_splits = require(train, "Config", "train", "build_splits")
    settings = SETTINGS[seed]
    cfg = Config(seed=seed, **settings)
    measure_bank_leak(seed, rec, cfg=cfg, build_splits=build_splits, train_fn=train_fn,
                      patched=[m for m in (data, train) if hasattr(m, "make_glyphs")],
                      n_classes=settings["n_classes"], per_class=settings["per_class"], tau_of=lambda cfg: cfg.tau,
                      history_rows=lambda history: [{k: float(v) for k, v in h.items()} for h in history],
                      returns="train() must return (encoder, norm, bank, history)")


measure_main(measure, seeds=tuple(SETTINGS))
