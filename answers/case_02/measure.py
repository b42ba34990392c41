"""case_02, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-c02-5eb46dc3224b96c8

Runs the agent's train() (entry points train.Config, train.train, train.lm_loss,
model.TinyGPT.forward) at the settings the README runs (Config defaults: AdamW lr 3e-3,
batch 16, 40 steps) and records, for every gradient-enabled step of the training:
- the input ids TinyGPT.forward receives, and the labels train.lm_loss receives;
- the value of the scalar the training differentiates (every backward());
- every optimizer step: the optimizer's class and learning rates;
- artifacts: the batches (ids and labels per step) and the model's weights as they were at the
  first and at the last gradient-enabled forward call, which the decider loads into its own copy
  of the model to recompute the loss and a held-out reply loss.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.label_masking import put_steps, recording_steps  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

MAX_STEPS_SAVED = 64


def measure(seed, rec):
    import torch

    train = import_workspace_module("train")
    model_mod = import_workspace_module("model")
    Config, train_fn, lm_loss = require(train, "Config", "train", "lm_loss")
    TinyGPT = require(model_mod, "TinyGPT")
    forward = require(model_mod, "TinyGPT.forward")

    ids_seen, labels_seen = [], []
    weights = {}

    def recording_forward(self, input_ids, *args, **kwargs):
        if torch.is_grad_enabled():
            ids_seen.append(input_ids.detach().clone())
            state = {k: v.detach().clone() for k, v in self.state_dict().items()}
            weights.setdefault("first", state)
            weights["last"] = state
        return forward(self, input_ids, *args, **kwargs)

    def recording_lm_loss(logits, labels, *args, **kwargs):
        if torch.is_grad_enabled():
            labels_seen.append(labels.detach().clone())
        return lm_loss(logits, labels, *args, **kwargs)

    TinyGPT.forward = recording_forward
    train.lm_loss = recording_lm_loss
    try:
        with recording_steps() as (backward_values, steps):
            train_fn(Config(seed=seed))
    finally:
        TinyGPT.forward = forward
        train.lm_loss = lm_loss

    rec.put("forward_calls", len(ids_seen))
    rec.put("lm_loss_calls", len(labels_seen))
    put_steps(rec, backward_values, steps, MAX_STEPS_SAVED)
    rec.put("learning_rates", sorted({lr for _, lrs in steps for lr in lrs})[:10])
    batches = {}
    for i, ids in enumerate(ids_seen[:MAX_STEPS_SAVED]):
        batches[f"ids_{i:03d}"] = ids
    for i, labels in enumerate(labels_seen[:MAX_STEPS_SAVED]):
        batches[f"labels_{i:03d}"] = labels
    rec.save("batches", batches)
    for name, state in weights.items():
        rec.save(f"weights_{name}", state)


measure_main(measure)
