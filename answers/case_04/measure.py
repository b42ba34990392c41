"""case_04, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-c04-3fa792f25ef83546

Entry points: train.Config, train.train, model.GestureNet (constructed as GestureNet(n_channels,
n_classes, hidden, dropout), called as net(x, lengths)), data.make_dataset (replaced, in data and
in train, by this file's own copy of the case's generator). Per seed, one training at the README's
settings (Adam lr 3e-3, batch 32, 150 steps, hidden 32, dropout 0.1, eval batch 100), recording:

- every optimizer step (class, learning rates) and the values passed to backward (the training
  loss: the last 50, and by step) and the history train() returns (seed 0 is the README's run,
  whose printed rows the decider compares with them);
- the trained model's logits, in eval mode, for the 500 validation recordings (which the decider
  regenerates): each recording alone (batch of 1, no padding), in order in batches of 100 (the
  README's evaluation), and in a fixed shuffled order in batches of 37 (other neighbours, other
  padding);
- the training-mode forward of the same network without dropout (GestureNet(..., dropout=0.0)
  loaded with the trained weights) on a batch of 32 training recordings, and on the same batch
  with its rows permuted (BatchNorm's batch statistics do not depend on the order of the rows).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.sequence_layout import N_CHANNELS, N_CLASSES, measure_sequence_model  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

PINNED = {"n_train": 2000, "n_val": 500, "hidden": 32, "dropout": 0.1, "batch_size": 32,
          "eval_batch_size": 100, "steps": 150, "lr": 3e-3, "log_every": 25}


def measure(seed, rec):
    data = import_workspace_module("data")
    require(data, "make_dataset")
    model_mod = import_workspace_module("model")
    GestureNet = require(model_mod, "GestureNet")
    train = import_workspace_module("train")
    Config, train_fn = require(train, "Config", "train")
    measure_sequence_model(
        seed, rec, run_training=lambda: train_fn(Config(seed=seed, **PINNED)),
        patched=[m for m in (data, train) if hasattr(m, "make_dataset")],
        lr_of=lambda opt: [g["lr"] for g in opt.param_groups],
        record_lrs=lambda rec, lrs: rec.put("learning_rates", sorted({lr for group in lrs for lr in group})[:10]),
        history_row=lambda h: {k: float(v) for k, v in h.items()},
        returns="train() must return (model, history)",
        model_without_dropout=lambda: GestureNet(N_CHANNELS, N_CLASSES, PINNED["hidden"], 0.0), save_state=False)


measure_main(measure)
