"""frontier_case_13, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_13-bf5bc45bdf41626b

Calls the agent's code only through config.load_config("configs/cnn.toml", [train.seed=seed,
train.export_dir=]) and train.run(cfg), as the README's `python train.py --config configs/cnn.toml` does.
Per seed it records a fixed random projection of every top-level training input and the labels of every
training loss (families/replayed_augmentation.py, run_recorded), what run() printed and the report it
returned; then a one-epoch run of the same configuration with augment.enabled=false on a probe export
(written beside it: every training wafer fails exactly one die, plus 8 clean wafers), recording the
training inputs and labels (whether a single failing die ever reaches the model as a clean wafer).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.replayed_augmentation import run_recorded  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/cnn.toml"  # the README's --config
DATA = "data/wafer_maps.npz"


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    run_recorded(rec, seed, require(config, "load_config"), require(train, "run"), CONFIG, DATA)


measure_main(measure)
