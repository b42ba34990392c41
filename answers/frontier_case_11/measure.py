"""frontier_case_11, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-f11-8e3b71c05d2a94f6

Calls the agent's code only through config.load_config("configs/fleet.toml", [train.seed=seed,
train.export_dir=]), train.run(cfg) (which loads the export with data.load_sites, as the README's
`python train.py --config configs/fleet.toml` does) and data.iterate_batches (wrapped, on the data module
and on every workspace module that holds the same function). Per seed it records every batch the loader
yielded (site, targets, and the plugs-online column, which identifies the depot's rows), every training
forward's output and the gradient backward delivered to it, the
number of optimizer steps, what run() printed and the held-out report it returned
(families/where_branch_gradient.py, run_recorded).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.where_branch_gradient import run_recorded  # noqa: E402
from verifylib import import_workspace_module, measure_main, require, workspace_holders  # noqa: E402

CONFIG = "configs/fleet.toml"  # the README's --config


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    data = import_workspace_module("data")
    load_config = require(config, "load_config")
    run_fn = require(train, "run")
    require(data, "load_sites")
    original_iter = require(data, "iterate_batches")
    columns = getattr(data, "COLUMNS", ())
    plugs_column = list(columns).index("plugs_online") if "plugs_online" in columns else 4
    run_recorded(rec, seed, load_config, run_fn, data, original_iter,
                 lambda: workspace_holders("iterate_batches", original_iter, exclude=(data,)), CONFIG, plugs_column=plugs_column)


measure_main(measure)
