"""case_10, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-c10-b81f2d6e09a4c357

Trains with the agent's train() (entry points train.Config, train.train) at the README's
training settings (tanh MLP 2x20, 32 collocation points, Adam lr 5e-3, 400 steps; loss weights
left at the agent's defaults) on three slabs: the README's plate, a five times thinner and
hotter one, and a thick plate of another material with heat generation. Per seed and slab it
records:
- the trained field T(x) on a 201-point grid over [0, L] (model(x), x in metres), and the
  model's state_dict, as artifacts;
- every optimizer step's class and learning rates.
"""

import contextlib
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

PINNED = {"steps": 400, "lr": 5e-3, "n_colloc": 32, "hidden": 20}
# name: (L [m], T_hot [K], T_cold [K], k [W/(m K)], q [W/m^3]) -- the decider holds the same table
SLABS = {
    "readme": (1e-3, 500.0, 300.0, 50.0, 0.0),
    "thin": (2e-4, 600.0, 300.0, 50.0, 0.0),
    "heated": (5e-2, 500.0, 300.0, 15.0, 1e6),
}
N_GRID = 201


def measure(seed, rec):
    import torch
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    train = import_workspace_module("train")
    Config, train_fn = require(train, "Config", "train")
    steps = []
    handle = register_optimizer_step_pre_hook(
        lambda opt, args, kwargs: steps.append((type(opt).__name__, [g["lr"] for g in opt.param_groups])))
    try:
        for name, (L, T_hot, T_cold, k, q) in SLABS.items():
            steps.clear()
            cfg = Config(seed=seed, L=L, T_hot=T_hot, T_cold=T_cold, k=k, q=q, **PINNED)
            with contextlib.redirect_stdout(io.StringIO()):
                model, _ = train_fn(cfg)
            rec.put(f"{name}_optimizer_steps", len(steps))
            rec.put(f"{name}_optimizers", sorted({kind for kind, _ in steps}))
            rec.put(f"{name}_learning_rates", sorted({lr for _, lrs in steps for lr in lrs})[:10])
            x = torch.linspace(0.0, L, N_GRID, dtype=torch.float64).reshape(-1, 1)
            with torch.no_grad():
                T = model(x)
            if not isinstance(T, torch.Tensor):
                raise TypeError(f"model(x) returned {type(T).__name__}, not a tensor")
            rec.save(f"{name}_field", {"T": T.detach().double().reshape(-1)})
            rec.save(f"{name}_model", {k: v for k, v in model.state_dict().items() if isinstance(v, torch.Tensor)})
    finally:
        handle.remove()


measure_main(measure)
