"""frontier_case_02, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_02-dec7404a818ca084

Calls the agent's code only through config.load_config("configs/herd26.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py`. A global forward pre-hook finds the first module run forward
in training mode with gradients on (the model, at its first training step); when run() returns, the momentum
of each of its BatchNorm layers is recorded with what run() printed (families/keras_bn_momentum.py).

Then the per-window inputs: the agent's data.load_exports and dataset.model_inputs (the inputs and window ids
train.py uses), rows matched to the raw exports by window id, and each window's milk yield recomputed here in
float64 from the raw exports (milk_l minus the same cow's previous window's milk_l; farm = file stem, cow =
farm and collar; a cow's first window is skipped): the smallest max-abs error of any input column against it.
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
    raw = pd.concat([pd.read_csv(p, dtype={"milk_l": np.float64}).assign(farm=p.stem) for p in paths],
                    ignore_index=True)
    raw = raw.sort_values(["farm", "collar", "start_h"], kind="stable")
    change = raw.groupby(["farm", "collar"])["milk_l"].diff()
    change = pd.Series(change.to_numpy(), index=raw["window_id"].to_numpy())
    rec.put("input_rows", int(x.shape[0]))
    if x.ndim != 2 or x.shape[0] != len(ids) or not set(map(str, ids)) <= set(change.index):
        rec.put("milk_change_error", float("inf"))
        return
    want = change.loc[[str(i) for i in ids]].to_numpy()
    if len(want) != len(change):
        rec.put("milk_change_error", float("inf"))
        return
    ok = np.isfinite(want)
    err = np.abs(x[ok] - want[ok][:, None]).max(axis=0)
    rec.put("milk_change_error", float(err.min()))


measure_main(measure)
