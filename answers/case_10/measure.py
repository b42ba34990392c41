"""case_10, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-c10-b81f2d6e09a4c357

Trains with the agent's train() (entry points train.Config, train.train) at the README's
training settings (tanh MLP 2x20, 32 collocation points, Adam lr 5e-3, 400 steps; loss weights
left at the agent's defaults) on three slabs: the README's plate, a five times thinner and
hotter one, a thick plate of another material with heat generation, and a wall of an
insulating material (k 1250 times lower). Per seed and slab it records:
- the trained field T(x) on a 201-point grid over [0, L] (model(x), x in metres), and the
  model's state_dict, as artifacts;
- on the heated slab, the same field with every parameter the optimizer trains set to zero
  (then restored): a field that comes from training loses its interior profile with its
  parameters, one computed without them (the analytic answer built into forward) keeps it;
- every optimizer step's class and learning rates;
- for the README's plate, what the training printed (the decider compares it with what
  `python train.py`, run by the harness as the user runs it, printed on seed 0).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent  # the verifier's bundle, or answers/<case>/ in the repository
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.pinn_loss_units import COMMON_SLABS, measure_slabs  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

PINNED = {"steps": 400, "lr": 5e-3, "n_colloc": 32, "hidden": 20}
# name: (L [m], T_hot [K], T_cold [K], k [W/(m K)], q [W/m^3]) -- the decider holds the same table
SLABS = {**COMMON_SLABS, "insulating": (1e-1, 330.0, 290.0, 0.04, 0.0)}  # readme, thin, heated, insulating
INIT_PROBE_SLAB = "heated"


def measure(seed, rec):
    def entry():
        train = import_workspace_module("train")
        Config, train_fn = require(train, "Config", "train")

        def configure(L, T_hot, T_cold, k, q):
            return Config(seed=seed, L=L, T_hot=T_hot, T_cold=T_cold, k=k, q=q, **PINNED)
        return configure, train_fn

    measure_slabs(rec, SLABS, entry, INIT_PROBE_SLAB, reset="zeroed")


measure_main(measure)
