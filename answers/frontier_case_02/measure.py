"""frontier_case_02, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_02-dec7404a818ca084

Calls the agent's code only through config.load_config("configs/herd26.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py`. A global forward pre-hook finds the first module run forward
in training mode with gradients on (the model, at its first training step); when run() returns, the momentum
of each of its BatchNorm layers is recorded with what run() printed (families/keras_bn_momentum.py).

Then the per-window inputs: the agent's data.load_exports and dataset.model_inputs (the inputs and window ids
train.py uses), rows matched to the raw exports by window id, and for the feed-bunk visit rate recomputed
here in float64 from the raw exports (visits / logged hours, 0 where no hour was logged), the smallest
relative error of any input column against it.
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
    if seed != 0:
        return
    import numpy as np
    import pandas as pd
    cfg = require(config, "load_config")(CONFIG, ["train.seed=0"])
    table = require(import_workspace_module("data"), "load_exports")(cfg.data.export_dir)
    x, ids = require(import_workspace_module("dataset"), "model_inputs")(table)[:2]
    x = np.asarray(x, dtype=np.float64)
    paths = sorted(Path(cfg.data.export_dir).glob("*.csv"))
    raw = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True).set_index("window_id")
    visits = raw["bunk_visits"].to_numpy(np.float64)
    hours = raw["logged_h"].to_numpy(np.float64)
    rate = pd.Series(np.where(hours > 0, visits / np.where(hours > 0, hours, 1.0), 0.0), index=raw.index)
    rec.put("input_rows", int(x.shape[0]))
    if x.ndim != 2 or x.shape[0] != len(ids) or not set(map(str, ids)) <= set(raw.index):
        rec.put("rate_rel_error", float("inf"))
        return
    want = rate.loc[[str(i) for i in ids]].to_numpy()
    if len(want) != len(rate):
        rec.put("rate_rel_error", float("inf"))
        return
    rel = np.abs(x - want[:, None]) / np.maximum(np.abs(want[:, None]), 1e-3)
    rec.put("rate_rel_error", float(rel.max(axis=0).min()))


measure_main(measure)
