"""frontier_case_10, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_10-14b5c3a5df8eee69

Calls the agent's code only through config.load_config("configs/ridge26.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py`. A global forward pre-hook finds the model (the first module
run forward in training mode with gradients on) and fingerprints every input row it trains on, counting
rows bit-identical to an earlier one; what run() printed is recorded (families/shared_split_transform.py).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.shared_split_transform import run_recorded  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/ridge26.toml"  # train.py's default --config


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    run_recorded(rec, seed, require(config, "load_config"), require(train, "run"), CONFIG)


measure_main(measure)
