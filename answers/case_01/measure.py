"""case_01, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-c01-087c9056fe069eb3

Trains with the agent's train() (entry points train.Config, train.train) at the settings the
README runs (plain SGD, lr 0.05, batch 64, 500 steps, default logging) and records, per seed:
- every optimizer step: the optimizer's class and learning rates;
- every backward(): the value of the scalar the training differentiates (the loss it optimizes),
  the last 100 and, by step, the first MAX_BY_STEP (the decider compares the losses the README's
  run prints at its logged steps with them: seed 0 at these settings is the README's run);
- every cross-entropy / NLL call with gradients on: whether its input rows were probabilities
  (non-negative, summing to 1; the tensor the bug feeds cross-entropy) and, for NLL, whether
  they were normalized log-probabilities (logsumexp 0);
- artifacts: the trained model's state_dict, and what the trained model returns (model(x),
  in eval and in train mode) on inputs the decider regenerates itself: the validation set,
  and the same windows scaled by PROBE_SCALE, where class scores are far apart.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

PINNED = {"lr": 0.05, "steps": 500, "batch_size": 64}
N_VAL, VAL_SEED_OFFSET, PROBE_SCALE = 1000, 100, 8.0  # the decider regenerates these inputs
MAX_BY_STEP = 1000


def validation_inputs(seed):
    """The validation windows of train() (the case's make_dataset), built from the measuring half's own copy."""
    import torch

    g = torch.Generator().manual_seed(seed + VAL_SEED_OFFSET)
    centres = torch.randn(10, 32, generator=torch.Generator().manual_seed(1234)) * 0.4
    y = torch.randint(0, 10, (N_VAL,), generator=g)
    return centres[y] + 4.0 * torch.randn(N_VAL, 32, generator=g) / 32 ** 0.5


def classify_rows(x):
    """(probability rows?, log-probability rows?) for a 2-D loss input."""
    import torch

    x = x.detach().double()
    ones = torch.ones(len(x), dtype=x.dtype)
    probs = bool((x >= 0).all()) and bool(torch.allclose(x.sum(-1), ones, atol=1e-4))
    logprobs = bool(torch.isfinite(x).all()) and bool(torch.allclose(x.logsumexp(-1), 0 * ones, atol=1e-4))
    return probs, logprobs


def measure(seed, rec):
    import torch
    import torch.nn.functional as F
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    steps, backward_values = [], []
    loss_inputs = {"cross_entropy": [], "nll_loss": []}

    def on_step(opt, args, kwargs):
        steps.append((type(opt).__name__, [g["lr"] for g in opt.param_groups]))

    backward = torch.autograd.backward

    def recording_backward(tensors, *args, **kwargs):
        t = tensors[0] if isinstance(tensors, (tuple, list)) else tensors
        if isinstance(t, torch.Tensor) and t.numel() == 1:
            backward_values.append(float(t.detach()))
        return backward(tensors, *args, **kwargs)

    originals = {name: getattr(F, name) for name in loss_inputs}

    def recording(name):
        def loss_fn(input, target, *args, **kwargs):
            if torch.is_grad_enabled() and isinstance(input, torch.Tensor) and input.dim() == 2:
                loss_inputs[name].append(classify_rows(input))
            return originals[name](input, target, *args, **kwargs)
        return loss_fn

    torch.autograd.backward = recording_backward
    for name in loss_inputs:
        setattr(F, name, recording(name))
    handle = register_optimizer_step_pre_hook(on_step)
    try:
        train = import_workspace_module("train")
        Config, train_fn = require(train, "Config", "train")
        model, _ = train_fn(Config(seed=seed, **PINNED))
    finally:
        handle.remove()
        torch.autograd.backward = backward
        for name, fn in originals.items():
            setattr(F, name, fn)
    rec.put("optimizer_steps", len(steps))
    rec.put("optimizers", sorted({kind for kind, _ in steps}))
    rec.put("learning_rates", sorted({lr for _, lrs in steps for lr in lrs})[:10])
    rec.put("backward_values", backward_values[-100:])
    rec.put("backward_calls", len(backward_values))
    rec.put("backward_values_by_step", backward_values[:MAX_BY_STEP])
    ce, nll = loss_inputs["cross_entropy"], loss_inputs["nll_loss"]
    rec.put("cross_entropy_calls", len(ce))
    rec.put("cross_entropy_calls_on_probabilities", sum(p for p, _ in ce))
    rec.put("nll_calls", len(nll))
    rec.put("nll_calls_not_on_log_probabilities", sum(not lp for _, lp in nll))
    rec.save("model", model.state_dict())

    x_val = validation_inputs(seed)
    outputs = {}
    with torch.no_grad():
        for mode in ("eval", "train"):
            model.train(mode == "train")
            for probe, x in (("val", x_val), ("scaled", x_val * PROBE_SCALE)):
                out = model(x)
                if not isinstance(out, torch.Tensor):
                    raise TypeError(f"model(x) returned {type(out).__name__}, not a tensor")
                outputs[f"{mode}_{probe}"] = out
    rec.save("outputs", outputs)


measure_main(measure)
