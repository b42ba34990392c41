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

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent  # the verifier's bundle, or answers/<case>/ in the repository
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.pinn_loss_units import COMMON_SLABS, measure_slabs  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

PINNED = ["optim.steps=400", "optim.lr=0.005", "sampler.n_points=32", "model.hidden=20", "model.depth=2",
          "model.kind=mlp", "problem.name=slab", "run.log_every=100", "run.out_dir=", "run.metrics_file="]
# name: (L [m], T_hot [K], T_cold [K], k [W/(m K)], q [W/m^3]) -- the decider holds the same table
SLABS = {**COMMON_SLABS, "insulator": (2e-3, 400.0, 300.0, 0.2, 0.0)}  # readme, thin, heated, insulator
INIT_PROBE_SLAB = "heated"


def measure(seed, rec):
    def entry():
        load_config = require(import_workspace_module("config"), "load_config")
        train_fn = require(import_workspace_module("train"), "train")

        def configure(L, T_hot, T_cold, k, q):
            return load_config("configs/slab.toml", PINNED + [f"problem.L={L!r}", f"problem.T_hot={T_hot!r}",
                                                              f"problem.T_cold={T_cold!r}", f"problem.k={k!r}",
                                                              f"problem.q={q!r}", f"run.seed={seed}"])
        return configure, train_fn

    measure_slabs(rec, SLABS, entry, INIT_PROBE_SLAB, reset="at_init")


measure_main(measure)
