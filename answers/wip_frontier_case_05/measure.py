"""wip_frontier_case_05, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-wip_frontier_case_05-dcfb26e2ad9b0587

Calls the agent's code only through config.load_config("configs/dock.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py --config configs/dock.toml` at seed s. Per seed it records
the learning rate of every optimizer step (a global optimizer step hook), the held-out report run() returned,
and the loss weights train.prepare attaches to the training rows, per station (families/schedule_unit.py,
run_recorded, weight_alignment).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.schedule_unit import run_recorded  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/dock.toml"  # the README's --config


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    run_recorded(rec, seed, require(config, "load_config"), require(train, "run"), CONFIG)


measure_main(measure, preload=("numpy", "torch"))
