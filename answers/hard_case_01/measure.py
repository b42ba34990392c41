"""hard_case_01, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-h01-5c2e9a7d41b08f36

Trains with the agent's code exactly as the README runs it (entry points train.config_from_args,
train.train): `--config configs/experiment.toml`, with only the seed set per run, and records,
per seed:
- every optimizer step of the model (not the calibration's one-scalar temperature fit): the
  optimizer's class and its learning rates (the schedule's peak);
- every backward(): the value of the scalar the training differentiates (the loss it optimizes),
  the last 100 and, by step, the first MAX_BY_STEP (the decider compares the losses the README's
  run prints at its logged steps with them: seed 0 is the README's run);
- every cross-entropy / NLL call with gradients on: whether its input rows were probabilities
  (non-negative, summing to 1) and, for NLL, whether they were normalized log-probabilities;
- the resolved model section of the config;
- what reached the loss at the last training step (the step-200 forward, made with the final
  weights: the trainer logs it and stops without another update): the input of the last
  cross-entropy / NLL call that followed a gradient-enabled forward of a (batch, 6, 48) window
  tensor, which call it was, and that window batch (as it entered the model, augmentation done);
- what the export serves: the project's ServingModel instance train() built (captured when it
  is constructed, whatever its arguments), run in eval mode on raw validation windows the
  decider regenerates; absent when train() built none;
- artifacts: the trained model's state_dict.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import EntryPointMissing, import_workspace_module, measure_main, require  # noqa: E402

README_ARGS = ["--config", "configs/experiment.toml"]
MAX_BY_STEP = 1000
N_TRAIN, N_VAL, N_CHANNELS, WINDOW, N_CLASSES = 3000, 800, 6, 48, 8
NOISE, SPREAD, PROTOTYPE_SEED, VAL_SEED_OFFSET = 1.4, 0.15, 1234, 100


def recordings(n, seed):
    """The case's synthetic windows (har/data/synth.py), from this file's own copy."""
    import math

    import torch

    g = torch.Generator().manual_seed(PROTOTYPE_SEED)
    freq = 1.0 + 4.0 * torch.rand(N_CLASSES, N_CHANNELS, generator=g)
    amp = 0.2 + 0.8 * torch.rand(N_CLASSES, N_CHANNELS, generator=g)
    offset = 0.3 * torch.randn(N_CLASSES, N_CHANNELS, generator=g)
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, N_CLASSES, (n,), generator=g)
    speed = 1.0 + SPREAD * torch.randn(n, 1, generator=g)
    phase = 2 * math.pi * torch.rand(n, N_CHANNELS, generator=g)
    t = torch.arange(WINDOW, dtype=torch.float32) / WINDOW
    angle = 2 * math.pi * (freq[y] * speed)[..., None] * t + phase[..., None]
    x = amp[y][..., None] * torch.sin(angle) + offset[y][..., None]
    return x + NOISE * torch.randn(n, N_CHANNELS, WINDOW, generator=g), y


def raw_validation_windows(seed):
    """The raw (unstandardized) validation windows, what the exported model is served."""
    x_val, _ = recordings(N_VAL, seed + VAL_SEED_OFFSET)
    return x_val


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
    from torch.nn.modules.module import register_module_forward_pre_hook
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    steps, backward_values = [], []
    loss_inputs = {"cross_entropy": [], "nll_loss": []}
    windows = {"x": None, "fresh": False}
    last_loss = {}

    def on_step(opt, args, kwargs):
        size = sum(p.numel() for g in opt.param_groups for p in g["params"])
        steps.append((type(opt).__name__, [g["lr"] for g in opt.param_groups], size))

    def on_forward(module, args):
        x = args[0] if args else None
        if (torch.is_grad_enabled() and isinstance(x, torch.Tensor) and x.dim() == 3
                and tuple(x.shape[1:]) == (N_CHANNELS, WINDOW)):
            windows.update(x=x, fresh=True)

    backward = torch.autograd.backward

    def recording_backward(tensors, *args, **kwargs):
        t = tensors[0] if isinstance(tensors, (tuple, list)) else tensors
        if isinstance(t, torch.Tensor) and t.numel() == 1:
            backward_values.append(float(t.detach()))
        return backward(tensors, *args, **kwargs)

    originals = {name: getattr(F, name) for name in loss_inputs}

    def recording(name):
        def loss_fn(input, target, *args, **kwargs):
            if torch.is_grad_enabled() and isinstance(input, torch.Tensor) and input.dim() == 2 and input.requires_grad:
                loss_inputs[name].append(classify_rows(input))
                x = windows["x"]
                if windows["fresh"] and x is not None and len(x) == len(input):
                    last_loss.update(kind=name, input=input.detach().clone(), x=x.detach().clone())
                    windows["fresh"] = False
            return originals[name](input, target, *args, **kwargs)
        return loss_fn

    served = []
    try:
        serving_cls = getattr(import_workspace_module("har.export"), "ServingModel", None)
    except EntryPointMissing:
        serving_cls = None  # no export module: the decider fails the export check, saying so
    serving_init = serving_cls.__init__ if isinstance(serving_cls, type) else None
    if serving_init is not None:
        def capturing_init(self, *args, **kwargs):
            serving_init(self, *args, **kwargs)
            served.append(self)
        serving_cls.__init__ = capturing_init

    torch.autograd.backward = recording_backward
    for name in loss_inputs:
        setattr(F, name, recording(name))
    handle = register_optimizer_step_pre_hook(on_step)
    forward_handle = register_module_forward_pre_hook(on_forward)
    try:
        train = import_workspace_module("train")
        config_from_args, train_fn = require(train, "config_from_args", "train")
        cfg = config_from_args(README_ARGS + ["--set", f"train.seed={seed}"])
        model_section = {k: getattr(cfg.model, k, None) for k in ("name", "channels", "depth", "kernel_size")}
        model, _ = train_fn(cfg)
    finally:
        handle.remove()
        forward_handle.remove()
        torch.autograd.backward = backward
        for name, fn in originals.items():
            setattr(F, name, fn)
        if serving_init is not None:
            serving_cls.__init__ = serving_init
    rec.put("model_config", model_section)
    training = [(kind, lrs) for kind, lrs, size in steps if size > 1]  # not the calibration's one temperature
    rec.put("optimizer_steps", len(training))
    rec.put("optimizers", sorted({kind for kind, _ in training}))
    rec.put("peak_learning_rate", max((lr for _, lrs in training for lr in lrs), default=None))
    rec.put("scalar_optimizer_steps", len(steps) - len(training))
    rec.put("backward_values", backward_values[-100:])
    rec.put("backward_calls", len(backward_values))
    rec.put("backward_values_by_step", backward_values[:MAX_BY_STEP])
    ce, nll = loss_inputs["cross_entropy"], loss_inputs["nll_loss"]
    rec.put("cross_entropy_calls", len(ce))
    rec.put("cross_entropy_calls_on_probabilities", sum(p for p, _ in ce))
    rec.put("nll_calls", len(nll))
    rec.put("nll_calls_not_on_log_probabilities", sum(not lp for _, lp in nll))
    rec.save("model", model.state_dict())
    rec.put("last_loss_call", last_loss.get("kind"))
    if last_loss:
        rec.save("last_loss_call", {"input": last_loss["input"], "x": last_loss["x"]})

    rec.put("serving_models_built", len(served))
    if served:
        serving = served[-1]
        serving.eval()
        with torch.no_grad():
            out = serving(raw_validation_windows(seed))
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"the ServingModel returned {type(out).__name__}, not a tensor")
        rec.save("served", {"probabilities": out})


measure_main(measure)
