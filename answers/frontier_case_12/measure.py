"""frontier_case_12, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-f12-7d41c9a2e08b53f6

Runs the agent's train.run(train.make_config("configs/experiment.toml", [...])) per seed with the
weight average and precise BatchNorm held at the README's settings (ema.decay 0.99 from epoch 1,
evaluated; trainer.precise_bn_batches 8; data.instrument_baseline on), so a config edit that turns any of them off does not change
what is measured. Records the saved checkpoint's state (the evaluated model), its epoch, every tensor
of its static feature stages (``ckpt["static"]``, flattened) and the returned history's per-epoch
validation losses.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/experiment.toml"
HELD = ["ema.decay=0.99", "ema.start_epoch=1", "ema.evaluate=true", "trainer.precise_bn_batches=8",
        "data.instrument_baseline=true"]


def _tensors_in(obj, prefix=""):
    """Every tensor in a nested dict/list, keyed by its path."""
    import torch

    if torch.is_tensor(obj):
        return {prefix or "value": obj}
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, (list, tuple)) else ()
    out = {}
    for k, v in items:
        out.update(_tensors_in(v, f"{prefix}.{k}" if prefix else str(k)))
    return out


def measure(seed, rec):
    import torch

    train = import_workspace_module("train")
    run_fn, make_config = require(train, "run", "make_config")
    cfg = make_config(CONFIG, [*HELD, f"seed={seed}", f"output.dir=runs/verify_seed{seed}"])
    _, history = run_fn(cfg, echo=False)
    rec.put("val_losses", [float(h["val"]["loss"]) for h in history])
    rec.put("epochs", len(history))
    ckpt = torch.load(Path(cfg.output.dir) / cfg.output.checkpoint, weights_only=False)
    rec.put("checkpoint_epoch", int(ckpt["epoch"]))
    rec.save("checkpoint_state", {k: v for k, v in ckpt["model"].items() if torch.is_tensor(v)})
    rec.save("static_tensors", _tensors_in(ckpt.get("static", {})))


measure_main(measure)
