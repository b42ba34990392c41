"""frontier_case_02, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_02-dec7404a818ca084

Calls the agent's code only through config.load_config("configs/herd26.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py`. A global forward pre-hook finds the first module run forward
in training mode with gradients on (the model, at its first training step); when run() returns, the momentum
of each of its BatchNorm layers is recorded with what run() printed (families/keras_bn_momentum.py).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.keras_bn_momentum import run_recorded  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/herd26.toml"  # train.py's default --config


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    import_workspace_module("sampling")
    run_recorded(rec, seed, require(config, "load_config"), require(train, "run"), CONFIG)


measure_main(measure)
