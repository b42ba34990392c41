"""frontier_case_06, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_06-211abad670f22b86

Calls the agent's code only through config.load_config("configs/router.toml", [train.seed=seed]) and
train.run(cfg), as the README's `python train.py --config configs/router.toml` does. Per seed it records, for
every trainable parameter of the model run() returns (classified by module type: embedding, normalization,
bias, linear weight), the weight decay of each optimizer group holding it (found through a global optimizer
step hook), the number of optimizer steps, what run() printed, and the validation predictions it returned
(families/decay_groups.py, run_recorded). Once (seed 0) it also records, through dataset.load_splits(cfg.data),
the number of real tokens the model receives for every training and validation ticket (TicketSet.lengths, by
record id).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.decay_groups import run_recorded  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/router.toml"  # the README's --config


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    run_recorded(rec, seed, require(config, "load_config"), require(train, "run"), CONFIG)
    if seed == 0:
        dataset = import_workspace_module("dataset")
        cfg = require(config, "load_config")(CONFIG, ["train.seed=0"])
        _, train_set, val_set = require(dataset, "load_splits")(cfg.data)
        rec.put("max_len", int(cfg.data.max_len))
        for split, ds in (("train", train_set), ("val", val_set)):
            rec.put(f"tokens_{split}", [[str(r["id"])[:20], int(n)] for r, n in zip(ds.records, ds.lengths.tolist())])


measure_main(measure)
