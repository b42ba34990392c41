"""wip_frontier_case_09, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-wip_frontier_case_09-43f52fd4060f2f5f

Calls the agent's code only through config.load_config("configs/ili.toml", [train.seed=s]),
train.run(cfg) (the README's `python train.py`) and train.build_datasets(cfg). During run() a global
forward hook finds the model (the first module run forward in training mode with gradients on) and records
the largest gradient of the loss with respect to its output at padded frames (input rows exactly zero) and
at real frames, every step. After it, the datasets are built again and, per segment, the weld step of the axial input
(median at weld frames minus median at wall frames) and the largest departure of each raw-channel input from
an affine function of a float64 recomputation from the run files (counts minus the run's reference) are
recorded (families/padded_frame_labels.py).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.padded_frame_labels import run_recorded  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/ili.toml"  # train.py's default --config


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    load_config = require(config, "load_config")
    run_fn, build_fn = require(train, "run", "build_datasets")
    run_recorded(rec, seed, load_config, run_fn, build_fn, CONFIG, s_ch=6)


measure_main(measure)
