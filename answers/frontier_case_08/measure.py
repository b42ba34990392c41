"""frontier_case_08, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_08-3c7e1f09a2d45b68

Calls the agent's code only through config.load_config("configs/season26.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py`, with a global optimizer step post-hook that records the
global gradient norm every optimizer step applied, and what run() printed, and the meter column of every window the run's datasets hold next to float64 differences of
the raw export's running totals (families/unclipped_update.py).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.unclipped_update import record_meter_usage, run_recorded  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

README_CONFIG = "configs/season26.toml"  # train.py's default --config


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    cfg, trainer = run_recorded(rec, seed, require(config, "load_config"), require(train, "run"), README_CONFIG)
    record_meter_usage(rec, cfg.data.export_dir, "water_meter_l", cfg.model.pretrained,
                       [trainer.train_loader.dataset, trainer.val_loader.dataset])


measure_main(measure)
