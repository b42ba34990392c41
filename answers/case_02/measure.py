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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

MAX_STEPS_SAVED = 64


def measure(seed, rec):
    import torch
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    train = import_workspace_module("train")
    model_mod = import_workspace_module("model")
    Config, train_fn, lm_loss = require(train, "Config", "train", "lm_loss")
    TinyGPT = require(model_mod, "TinyGPT")
    forward = require(model_mod, "TinyGPT.forward")

    ids_seen, labels_seen, backward_values, steps = [], [], [], []
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

    backward = torch.autograd.backward

    def recording_backward(tensors, *args, **kwargs):
        t = tensors[0] if isinstance(tensors, (tuple, list)) else tensors
        if isinstance(t, torch.Tensor) and t.numel() == 1:
            backward_values.append(float(t.detach()))
        return backward(tensors, *args, **kwargs)

    def on_step(opt, args, kwargs):
        steps.append((type(opt).__name__, [g["lr"] for g in opt.param_groups]))

    TinyGPT.forward = recording_forward
    train.lm_loss = recording_lm_loss
    torch.autograd.backward = recording_backward
    handle = register_optimizer_step_pre_hook(on_step)
    try:
        train_fn(Config(seed=seed))
    finally:
        handle.remove()
        torch.autograd.backward = backward
        TinyGPT.forward = forward
        train.lm_loss = lm_loss

    rec.put("forward_calls", len(ids_seen))
    rec.put("lm_loss_calls", len(labels_seen))
    rec.put("backward_values", backward_values[:MAX_STEPS_SAVED])
    rec.put("backward_calls", len(backward_values))
    rec.put("optimizer_steps", len(steps))
    rec.put("optimizers", sorted({kind for kind, _ in steps}))
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
