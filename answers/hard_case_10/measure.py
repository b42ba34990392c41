"""hard_case_10, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-h10-3f9a62c1d47e08b5

Trains with the agent's train() on the configuration the README runs (entry points
config.load_config, train.train: configs/slab.toml, pinned by overrides to its training settings:
tanh MLP 2x20, 32 grid collocation points, Adam lr 5e-3, 400 steps; loss weights and everything
else left as the agent's config has them) on three slabs: the README's plate, a five times thinner and
hotter one, a thick plate of another material with heat generation, and a polymer sheet (a
conductivity 250 times lower than the README's steel). Per seed and slab it
records:
- the trained field T(x) on a 201-point grid over [0, L] (model(x), x in metres), and the
  model's state_dict, as artifacts;
- on the heated slab, the same field with every parameter the optimizer trains put back to
  the value it had before the first optimizer step (then restored): a field that comes from
  training moves with its parameters, one computed without them (the analytic answer) does not;
- every optimizer step's class and learning rates;
- for the README's plate, what the training printed (the decider compares it with what
  `python train.py --config configs/slab.toml`, run by the harness as the user runs it, printed on
  seed 0).
"""

import contextlib
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

PINNED = ["optim.steps=400", "optim.lr=0.005", "sampler.n_points=32", "model.hidden=20", "model.depth=2",
          "model.kind=mlp", "problem.name=slab", "run.log_every=100", "run.out_dir=", "run.metrics_file="]
# name: (L [m], T_hot [K], T_cold [K], k [W/(m K)], q [W/m^3]) -- the decider holds the same table
SLABS = {
    "readme": (1e-3, 500.0, 300.0, 50.0, 0.0),
    "thin": (2e-4, 600.0, 300.0, 50.0, 0.0),
    "heated": (5e-2, 500.0, 300.0, 15.0, 1e6),
    "insulator": (2e-3, 400.0, 300.0, 0.2, 0.0),
}
N_GRID = 201
INIT_PROBE_SLAB = "heated"


def measure(seed, rec):
    import torch
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    load_config = require(import_workspace_module("config"), "load_config")
    train_fn = require(import_workspace_module("train"), "train")
    steps, initial = [], []

    def on_step(opt, args, kwargs):
        steps.append((type(opt).__name__, [g["lr"] for g in opt.param_groups]))
        if not initial:  # the parameters as they were before the first step of this training
            initial.extend((p, p.detach().clone()) for g in opt.param_groups for p in g["params"])

    handle = register_optimizer_step_pre_hook(on_step)
    try:
        for name, (L, T_hot, T_cold, k, q) in SLABS.items():
            steps.clear()
            initial.clear()
            cfg = load_config("configs/slab.toml", PINNED + [f"problem.L={L!r}", f"problem.T_hot={T_hot!r}",
                                                             f"problem.T_cold={T_cold!r}", f"problem.k={k!r}",
                                                             f"problem.q={q!r}", f"run.seed={seed}"])
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                model, _ = train_fn(cfg)
            if name == "readme":
                rec.put("readme_printed", printed.getvalue()[:20000])
            rec.put(f"{name}_optimizer_steps", len(steps))
            rec.put(f"{name}_optimizers", sorted({kind for kind, _ in steps}))
            rec.put(f"{name}_learning_rates", sorted({lr for _, lrs in steps for lr in lrs})[:10])
            x = torch.linspace(0.0, L, N_GRID, dtype=torch.float64).reshape(-1, 1)
            with torch.no_grad():
                T = model(x)
            if not isinstance(T, torch.Tensor):
                raise TypeError(f"model(x) returned {type(T).__name__}, not a tensor")
            rec.save(f"{name}_field", {"T": T.detach().double().reshape(-1)})
            if name == INIT_PROBE_SLAB:
                rec.put(f"{name}_trained_parameters", len(initial))
            if name == INIT_PROBE_SLAB and initial:
                trained = [(p, p.detach().clone()) for p, _ in initial]
                with torch.no_grad():
                    for p, p0 in initial:
                        p.copy_(p0)
                    T0 = model(x)
                    for p, p1 in trained:
                        p.copy_(p1)
                if not isinstance(T0, torch.Tensor):
                    raise TypeError(f"model(x) returned {type(T0).__name__}, not a tensor")
                rec.save(f"{name}_field_at_init", {"T": T0.detach().double().reshape(-1)})
            rec.save(f"{name}_model", {k: v for k, v in model.state_dict().items() if isinstance(v, torch.Tensor)})
    finally:
        handle.remove()


measure_main(measure)
