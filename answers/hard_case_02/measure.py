"""hard_case_02, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-h02-9d3f71c2a6e05b84

Trains with the agent's code exactly as the README runs it (entry points train.config_from_args,
train.train): `--config configs/sampling.toml`, with only the seed set per run, and records, for
every gradient-enabled step:
- the input ids the model receives (a global forward pre-hook, kept for the model train()
  returns, so any refactor of the collator, trainer or model is seen the same way);
- the target tensor every gradient-enabled cross-entropy call receives (the labels the loss
  actually supervises, after any shift);
- the value of the scalar the training differentiates (every backward());
- every optimizer step: its class and learning rates.
Artifacts: the ids and targets of every step (the decider rebuilds the reply positions from the
ids itself), and the trained weights.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

README_ARGS = ["--config", "configs/sampling.toml"]
MAX_STEPS_SAVED = 80


def measure(seed, rec):
    import torch
    import torch.nn.functional as F
    from torch.nn.modules.module import register_module_forward_pre_hook
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    inputs, targets, backward_values, steps = [], [], [], []

    def on_forward(module, args):
        if torch.is_grad_enabled() and args and isinstance(args[0], torch.Tensor) \
                and args[0].dim() == 2 and not args[0].is_floating_point():
            inputs.append((id(module), args[0].detach().clone()))

    cross_entropy = F.cross_entropy

    def recording_cross_entropy(input, target, *args, **kwargs):
        if torch.is_grad_enabled() and isinstance(target, torch.Tensor) and not target.is_floating_point():
            targets.append(target.detach().reshape(-1).clone())
        return cross_entropy(input, target, *args, **kwargs)

    backward = torch.autograd.backward

    def recording_backward(tensors, *args, **kwargs):
        t = tensors[0] if isinstance(tensors, (tuple, list)) else tensors
        if isinstance(t, torch.Tensor) and t.numel() == 1:
            backward_values.append(float(t.detach()))
        return backward(tensors, *args, **kwargs)

    def on_step(opt, args, kwargs):
        steps.append((type(opt).__name__, [g["lr"] for g in opt.param_groups]))

    F.cross_entropy = recording_cross_entropy
    torch.autograd.backward = recording_backward
    handles = [register_module_forward_pre_hook(on_forward), register_optimizer_step_pre_hook(on_step)]
    try:
        train = import_workspace_module("train")
        config_from_args, train_fn = require(train, "config_from_args", "train")
        cfg = config_from_args(README_ARGS + ["--set", f"train.seed={seed}"])
        model, _ = train_fn(cfg)
    finally:
        for h in handles:
            h.remove()
        torch.autograd.backward = backward
        F.cross_entropy = cross_entropy

    ids = [x for owner, x in inputs if owner == id(model)]
    rec.put("model_forward_calls", len(ids))
    rec.put("cross_entropy_calls", len(targets))
    rec.put("backward_values", backward_values[:MAX_STEPS_SAVED])
    rec.put("backward_calls", len(backward_values))
    rec.put("optimizer_steps", len(steps))
    rec.put("optimizers", sorted({kind for kind, _ in steps}))
    rec.put("peak_learning_rate", max((lr for _, lrs in steps for lr in lrs), default=None))
    batches = {f"ids_{i:03d}": x for i, x in enumerate(ids[:MAX_STEPS_SAVED])}
    batches.update({f"targets_{i:03d}": t for i, t in enumerate(targets[:MAX_STEPS_SAVED])})
    rec.save("batches", batches)
    rec.save("model", model.state_dict())


measure_main(measure)
