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

HERE = Path(__file__).resolve().parent  # the verifier's bundle, or answers/<case>/ in the repository
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.loss_on_probabilities import LossWatch, har_windows  # noqa: E402
from verifylib import EntryPointMissing, import_workspace_module, measure_main, require  # noqa: E402

README_ARGS = ["--config", "configs/experiment.toml"]
MAX_BY_STEP = 1000
N_VAL, N_CHANNELS, WINDOW, N_CLASSES = 800, 6, 48, 8
NOISE, SPREAD, PROTOTYPE_SEED, VAL_SEED_OFFSET = 1.4, 0.15, 1234, 100


def raw_validation_windows(seed):
    """The raw (unstandardized) validation windows, what the exported model is served."""
    x_val, _ = har_windows(N_VAL, seed + VAL_SEED_OFFSET, N_CLASSES, N_CHANNELS, WINDOW, NOISE, SPREAD, PROTOTYPE_SEED)
    return x_val


def measure(seed, rec):
    import torch
    from torch.nn.modules.module import register_module_forward_pre_hook

    windows = {"x": None, "fresh": False}
    last_loss = {}

    def on_forward(module, args):
        x = args[0] if args else None
        if (torch.is_grad_enabled() and isinstance(x, torch.Tensor) and x.dim() == 3
                and tuple(x.shape[1:]) == (N_CHANNELS, WINDOW)):
            windows.update(x=x, fresh=True)

    def on_loss(name, input):
        x = windows["x"]
        if windows["fresh"] and x is not None and len(x) == len(input):
            last_loss.update(kind=name, input=input.detach().clone(), x=x.detach().clone())
            windows["fresh"] = False

    watch = LossWatch(grad_inputs_only=True, on_loss=on_loss)  # before the agent's modules are imported
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

    try:
        with watch:
            forward_handle = register_module_forward_pre_hook(on_forward)
            try:
                train = import_workspace_module("train")
                config_from_args, train_fn = require(train, "config_from_args", "train")
                cfg = config_from_args(README_ARGS + ["--set", f"train.seed={seed}"])
                model_section = {k: getattr(cfg.model, k, None) for k in ("name", "channels", "depth", "kernel_size")}
                model, _ = train_fn(cfg)
            finally:
                forward_handle.remove()
    finally:
        if serving_init is not None:
            serving_cls.__init__ = serving_init
    rec.put("model_config", model_section)
    training = [(kind, lrs) for kind, lrs, size in watch.steps if size > 1]  # not the calibration's one temperature
    rec.put("optimizer_steps", len(training))
    rec.put("optimizers", sorted({kind for kind, _ in training}))
    rec.put("peak_learning_rate", max((lr for _, lrs in training for lr in lrs), default=None))
    rec.put("scalar_optimizer_steps", len(watch.steps) - len(training))
    watch.put_losses(rec, MAX_BY_STEP)
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
