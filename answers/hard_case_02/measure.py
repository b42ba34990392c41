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

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.label_masking import put_steps, recording_steps, train_as_readme  # noqa: E402
from verifylib import measure_main  # noqa: E402

README_ARGS = ["--config", "configs/sampling.toml"]
MAX_STEPS_SAVED = 80


def measure(seed, rec):
    import torch
    import torch.nn.functional as F
    from torch.nn.modules.module import register_module_forward_pre_hook

    inputs, targets = [], []

    def on_forward(module, args):
        if torch.is_grad_enabled() and args and isinstance(args[0], torch.Tensor) \
                and args[0].dim() == 2 and not args[0].is_floating_point():
            inputs.append((id(module), args[0].detach().clone()))

    cross_entropy = F.cross_entropy

    def recording_cross_entropy(input, target, *args, **kwargs):
        if torch.is_grad_enabled() and isinstance(target, torch.Tensor) and not target.is_floating_point():
            targets.append(target.detach().reshape(-1).clone())
        return cross_entropy(input, target, *args, **kwargs)

    F.cross_entropy = recording_cross_entropy
    handle = register_module_forward_pre_hook(on_forward)
    try:
        with recording_steps() as (backward_values, steps):
            model = train_as_readme(README_ARGS, seed)
    finally:
        handle.remove()
        F.cross_entropy = cross_entropy

    ids = [x for owner, x in inputs if owner == id(model)]
    rec.put("model_forward_calls", len(ids))
    rec.put("cross_entropy_calls", len(targets))
    put_steps(rec, backward_values, steps, MAX_STEPS_SAVED)
    rec.put("peak_learning_rate", max((lr for _, lrs in steps for lr in lrs), default=None))
    batches = {f"ids_{i:03d}": x for i, x in enumerate(ids[:MAX_STEPS_SAVED])}
    batches.update({f"targets_{i:03d}": t for i, t in enumerate(targets[:MAX_STEPS_SAVED])})
    rec.save("batches", batches)
    rec.save("model", model.state_dict())


measure_main(measure)
