"""hard_case_04, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-h04-41c2906345c38ee6

Entry points: config.load_config (called with no file and the README's configuration as overrides,
so the experiment is pinned whatever configs/ now says), train.run_experiment(cfg) -> (model,
history rows), models.build_model(model_cfg, n_channels, n_classes), synth.make_dataset (replaced,
in every loaded module that imported it, by this file's own copy of the case's generator). Per
seed, one training at the README's configuration (configs/recurrent.toml: GRU, AdamW lr 3e-3
warmup 10 + cosine, batch 32 bucketed, jitter 0.05, scale 0.1, clip 0.25, 150 steps, eval batch
100), recording:

- every optimizer step (class, learning rate of the first group) and the values passed to backward
  (the training loss: the last 50, and by step) and the history run_experiment returns (seed 0 is
  the README's run, whose printed rows the decider compares with them);
- the trained model's state_dict (the decider rebuilds the case's GRU model from it);
- the trained model's logits, in eval mode, for the 500 validation recordings (which the decider
  regenerates): each recording alone (batch of 1, no padding), in order in batches of 100 (the
  README's evaluation), and in a fixed shuffled order in batches of 37;
- the training-mode forward of a model built by build_model with dropout 0 and loaded with the
  trained weights, on a batch of 32 training recordings and on the same batch with its rows
  permuted.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.sequence_layout import MAX_BY_STEP, N_CHANNELS, N_CLASSES, measure_sequence_model  # noqa: E402
from verifylib import import_workspace_module, measure_main, require, workspace_holders  # noqa: E402

README_CONFIG = {
    "name": '"gru-jitter"',
    "data.n_train": 2000, "data.n_val": 500, "data.min_frames": 12, "data.max_frames": 28,
    "data.jitter": 0.05, "data.scale_range": 0.1, "data.bucket_by_length": "true",
    "model.kind": '"gru"', "model.hidden": 32, "model.dropout": 0.1, "model.layers": 1, "model.pool": '"mean"',
    "optim.name": '"adamw"', "optim.lr": 3e-3, "optim.weight_decay": 1e-4, "optim.warmup_steps": 10,
    "optim.schedule": '"cosine"', "optim.clip_norm": 0.25, "optim.steps": 150, "optim.batch_size": 32,
    "eval.batch_size": 100, "eval.every": 25,
}


def measure(seed, rec):
    synth = import_workspace_module("synth")
    require(synth, "make_dataset")
    config = import_workspace_module("config")
    load_config = require(config, "load_config")
    models = import_workspace_module("models")
    build_model = require(models, "build_model")
    train = import_workspace_module("train")
    run_experiment = require(train, "run_experiment")

    overrides = [f"{k}={v}" for k, v in README_CONFIG.items()] + [f"seed={seed}"]
    cfg = load_config(None, overrides)
    patched = workspace_holders("make_dataset", synth.make_dataset)
    measure_sequence_model(
        seed, rec, run_training=lambda: run_experiment(cfg), patched=patched,
        lr_of=lambda opt: float(opt.param_groups[0]["lr"]),
        record_lrs=lambda rec, lrs: rec.put("lr_by_step", lrs[:MAX_BY_STEP]),
        history_row=lambda h: {k: float(v) for k, v in h.items() if isinstance(v, (int, float))},
        returns="run_experiment() must return (model, history rows)",
        model_without_dropout=lambda: build_model(load_config(None, overrides + ["model.dropout=0.0"]).model,
                                                  N_CHANNELS, N_CLASSES),
        save_state=True)


measure_main(measure)
