"""frontier_case_14, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_14-63650fbbfce09824

Runs the agent's train.run(train.make_config("configs/plant.toml", ["seed=s"])) at the README's
settings, with a global forward pre-hook that keeps the first validation's inputs (600 rows), then
probes the returned model: weights, two eval-mode forwards of 128 validation rows under different
RNG states, one training-mode forward with its RNG state (families/functional_dropout_mode.py).
It then rebuilds the same config's splits with the agent's pumpwatch.data.build_splits and keeps the
training split's log-power features before standardization (the standardized rows mapped back with the
returned standardizer's mean and std) and its labels: what the model trains on, whatever cuts it.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.functional_dropout_mode import watch_fit  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/plant.toml"
N_VAL = 600


def training_features(rec, cfg):
    import torch

    data = import_workspace_module("pumpwatch.data.pipeline")
    build_splits = require(data, "build_splits")
    train, _, scaler = build_splits(cfg)
    state = scaler.state()
    mean = torch.tensor(state["mean"], dtype=torch.float64).reshape(1, -1, 1)
    std = torch.tensor(state["std"], dtype=torch.float64).reshape(1, -1, 1)
    raw = train.x.double() * std + mean
    rec.save("training_features", {"log_power": raw.float(), "label": train.y.clone()})


def measure(seed, rec):
    train = import_workspace_module("train")
    run_fn, make_config = require(train, "run", "make_config")
    cfg = make_config(CONFIG, [f"seed={seed}", "output.dir=runs/verify"])
    watch_fit(rec, lambda: (lambda: run_fn(cfg, echo=False)), N_VAL)
    training_features(rec, cfg)


measure_main(measure)
