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

HERE = Path(__file__).resolve().parent  # the verifier's bundle, or answers/<case>/ in the repository
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.loss_on_probabilities import LossWatch  # noqa: E402
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


def measure(seed, rec):
    import torch

    with LossWatch() as watch:
        train = import_workspace_module("train")
        Config, train_fn = require(train, "Config", "train")
        model, _ = train_fn(Config(seed=seed, **PINNED))
    rec.put("optimizer_steps", len(watch.steps))
    rec.put("optimizers", sorted({kind for kind, _, _ in watch.steps}))
    rec.put("learning_rates", sorted({lr for _, lrs, _ in watch.steps for lr in lrs})[:10])
    watch.put_losses(rec, MAX_BY_STEP)
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
