"""hard_case_03, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-h03-ce39008fe54aa1fc

Entry points: config.load_config (called with no file and the README's configuration as overrides,
so the experiment is pinned whatever configs/ now says), train.run_experiment(cfg) -> (encoder,
normalizer, classifier, history rows), splits.build_splits(cfg) -> (train_set, val_set),
glyphs.make_glyphs (replaced, in every loaded workspace module that imported it, by this file's own
copy of the case's generator), memory.MemoryBank.log_probs (called on the classifier
run_experiment returns). Seeds 0, 1, 2 at the README's configuration (configs/nca.toml: 100
classes x 10 images, 20% validation, random split, class-balanced batches of 16 x 4, conv encoder
dim 64, NCA bank with tau 0.04 refreshed every 10 steps, Adam lr 1e-3, 60 steps, logged every 20);
seed 3 on a second data shape (50 classes x 20 images, 30% validation, 40 steps). Per seed, two
trainings:

- run A on the case's data as shipped;
- run B on the same data with only the validation rows' images replaced by other draws of the
  same glyphs (labels and split unchanged; the split's validation rows are found by content in
  what build_splits returns, never through a Subset's attributes).

Recorded, per seed:
- the split build_splits returns (images and labels of both parts, from the items the datasets yield);
- run A: every optimizer step (class, learning rates), the trained encoder's state_dict and its
  parameters at the first optimizer step (the initial encoder), the history run_experiment
  returns, every value passed to backward (the training loss; by step: seed 0 is the README's
  run, whose printed losses the decider compares with them), what the returned normalizer makes
  of every image, and what the returned classifier predicts: for the validation images, and for
  the training images with the row ids their dataset yields (query_ids, the leave-self-out path);
- run B: the trained encoder's state_dict, the returned normalizer's output on run A's images,
  and the validation images of B's split (to show the replacement reached the pipeline).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.memory_bank_leak import measure_bank_leak  # noqa: E402
from verifylib import import_workspace_module, measure_main, require, workspace_holders  # noqa: E402

PINNED = {"name": '"nca-bank"', "data.n_classes": 100, "data.per_class": 10, "data.noise": 0.45,
          "data.val_frac": 0.2, "data.split": '"random"', "data.augment": "false", "data.balanced_batches": "true",
          "model.encoder": '"conv"', "model.dim": 64, "model.width": 32,
          "classifier.kind": '"nca"', "classifier.tau": 0.04, "classifier.refresh_every": 10,
          "optim.lr": 1e-3, "optim.weight_decay": 0.0, "optim.steps": 60, "optim.batch_size": 64,
          "optim.warmup_steps": 0, "eval.every": 20, "eval.batch_size": 256}
# seeds 0-2: the README's settings; seed 3: a second data shape (50 classes x 20 images, 30% validation),
# so a fix tied to the default sizes (1000 rows, 200 of them validation) shows.
SETTINGS = {0: PINNED, 1: PINNED, 2: PINNED,
            3: {**PINNED, "data.n_classes": 50, "data.per_class": 20, "data.val_frac": 0.3, "optim.steps": 40}}


def measure(seed, rec):
    glyphs = import_workspace_module("glyphs")
    require(glyphs, "make_glyphs")
    memory = import_workspace_module("memory")
    require(memory, "MemoryBank.log_probs")
    config = import_workspace_module("config")
    load_config = require(config, "load_config")
    splits_mod = import_workspace_module("splits")
    build_splits = require(splits_mod, "build_splits")
    train = import_workspace_module("train")
    train_fn = require(train, "run_experiment")
    settings = SETTINGS[seed]
    cfg = load_config(None, [f"{k}={v}" for k, v in settings.items()] + [f"seed={seed}"])
    patched = workspace_holders("make_glyphs", glyphs.make_glyphs)
    measure_bank_leak(seed, rec, cfg=cfg, build_splits=build_splits, train_fn=train_fn, patched=patched,
                      n_classes=settings["data.n_classes"], per_class=settings["data.per_class"],
                      tau_of=lambda cfg: cfg.classifier.tau,
                      history_rows=lambda history: [{k: float(v) for k, v in h.items() if isinstance(v, (int, float))}
                                                    for h in history][:50],
                      returns="run_experiment() must return (encoder, norm, classifier, history)")


measure_main(measure, seeds=tuple(SETTINGS))
