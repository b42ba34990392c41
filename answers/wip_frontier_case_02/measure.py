"""frontier_case_02, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_02-dec7404a818ca084

Calls the agent's code only through config.load_config("configs/herd26.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py`. A global forward pre-hook finds the first module run forward
in training mode with gradients on (the model, at its first training step); when run() returns, the momentum
of each of its BatchNorm layers is recorded with what run() printed (families/keras_bn_momentum.py).

Then the per-window inputs: the agent's data.load_exports and dataset.model_inputs (the inputs and window ids
train.py uses), rows matched to the raw exports by window id, and each window's loudness recomputed here from
the raw exports (log10 of the six jaw-band energies' sum): the R^2 of its least-squares fit on the inputs,
log10 of their absolute values and a constant (so the shares plus the log total, the log bands, the raw bands,
a mean log level ... all carry it; the shares alone do not).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.keras_bn_momentum import run_recorded  # noqa: E402
from verifylib import import_workspace_module, linear_fit_r2, measure_main, minus_group_means, require  # noqa: E402

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
    raw = pd.concat([pd.read_csv(p).assign(farm=p.stem) for p in paths], ignore_index=True).set_index("window_id")
    bands = ["jaw_63hz", "jaw_125hz", "jaw_250hz", "jaw_500hz", "jaw_1khz", "jaw_2khz"]
    loud = np.log10(raw[bands].sum(axis=1))
    rec.put("input_rows", int(x.shape[0]))
    ids = [str(i) for i in ids]
    if x.ndim != 2 or x.shape[0] != len(ids) or len(set(ids)) != len(raw) or not set(ids) <= set(raw.index):
        rec.put("loudness_r2", float("-inf"))
        return
    y = loud.loc[ids].to_numpy(dtype=np.float64)
    with np.errstate(all="ignore"):
        design = np.hstack([x, np.log10(np.abs(x) + 1e-9)])
    design = design[:, np.isfinite(design).all(axis=0)]
    # Within each cow (farm and collar): a loudness against the cow's own baseline is as correct a fix as the
    # absolute one (it drops the collar's gain and keeps the lame window's extra loudness), so the fit is taken
    # after removing each cow's mean from both sides.
    cows = (raw["farm"] + "/" + raw["collar"]).loc[ids].to_numpy()
    y, design = minus_group_means(y, cows), minus_group_means(design, cows)
    rec.put("loudness_r2", linear_fit_r2(design, y))
    # The same inputs from exports whose state column is shuffled within each farm: a feature built with the
    # labels (a loudness against the cow's windows labelled normal, say) moves; one built from readings does not.
    import tempfile
    with tempfile.TemporaryDirectory(prefix="mldb-relabelled-") as tmp:
        rng = np.random.default_rng(0)
        for p in paths:
            frame = pd.read_csv(p, dtype=str, keep_default_na=False)
            frame["state"] = rng.permutation(frame["state"].to_numpy())
            frame.to_csv(Path(tmp) / p.name, index=False)
        x2, ids2 = require(import_workspace_module("dataset"), "model_inputs")(
            require(import_workspace_module("data"), "load_exports")(tmp))[:2]
        x2 = np.asarray(x2, dtype=np.float64)
        where = {str(i): k for k, i in enumerate(ids2)}
        same = x2.shape == x.shape and set(where) == set(ids)
        diff = float(np.abs(x2[[where[i] for i in ids]] - x).max()) if same else float("inf")
    rec.put("label_shuffle_diff", diff)


measure_main(measure)
