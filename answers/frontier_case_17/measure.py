"""frontier_case_17, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_17-88df9225a17914f3

Calls the agent's code only through config.load_config("configs/fleet26.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py`, with sampling.build_train_loader wrapped (on the sampling
module and on every workspace module that holds the same function) so the labels and loss weights of every
batch the training loader yields are recorded. A global forward pre-hook snapshots the parameters of the first
module run forward in training mode with gradients on (the model, at its first training step); the pristine
pretrained file's backbone arrays are recorded beside them (families/reinit_after_load.py).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.reinit_after_load import run_recorded  # noqa: E402
from verifylib import import_workspace_module, measure_main, pristine_case, require, workspace_holders  # noqa: E402

CONFIG = "configs/fleet26.toml"  # train.py's default --config


def _pretrained():
    bundled = pristine_case() / "pretrained" / "wheelnet_2025.npz"
    if bundled.is_file():
        return bundled
    return HERE.parent.parent / "cases" / "frontier_case_17" / "pretrained" / "wheelnet_2025.npz"


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    sampling = import_workspace_module("sampling")
    load_config = require(config, "load_config")
    run_fn = require(train, "run")
    original = require(sampling, "build_train_loader")
    holders = workspace_holders("build_train_loader", original)
    run_recorded(rec, seed, load_config, run_fn, holders, "build_train_loader", original, CONFIG, _pretrained())


measure_main(measure)
