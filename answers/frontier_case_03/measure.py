"""frontier_case_03, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_03-5694cfb8c940728e

Calls the agent's code only through config.load_config("configs/herd26.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py`. A global forward pre-hook finds the first module run forward
in training mode with gradients on (the model) and keeps, for each of its training forwards, the number of
exactly-zero inputs, the number of inputs and their sum of squares, with what run() printed
(families/compounding_augmentation.py).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.compounding_augmentation import run_recorded  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/herd26.toml"  # train.py's default --config


def departure_offset(config, train):
    """Largest |median departure| of one training cow, in units of the column's robust spread. The departure
    half of model_inputs (through the names train.py imports) should be each cow's readings minus her own
    median, so 0 for every cow. -1 when the pipeline's functions are not there in this form (the outcome
    checks then decide alone)."""
    import numpy as np
    try:
        cfg = config.load_config(CONFIG, [])
        load_exports, split_by_cow, model_inputs = (getattr(train, n) for n in
                                                    ("load_exports", "split_by_cow", "model_inputs"))
        train_t, _ = split_by_cow(load_exports(cfg.data.export_dir), cfg.data.val_fraction, cfg.data.split_seed)
        x = np.asarray(model_inputs(train_t), dtype=np.float64)
        nf = np.asarray(train_t.features).shape[1]
        if x.shape != (len(train_t.labels), 2 * nf):
            return -1.0
        dev = x[:, nf:]
        scale = np.maximum(1.4826 * np.median(np.abs(dev - np.median(dev, axis=0)), axis=0), 1e-9)
        keys = np.array([f"{a}/{b}" for a, b in zip(train_t.farms, train_t.cows)])
        return float(max(np.max(np.abs(np.median(dev[keys == k], axis=0)) / scale) for k in np.unique(keys)))
    except Exception:
        return -1.0


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    run_recorded(rec, seed, require(config, "load_config"), require(train, "run"), CONFIG)
    rec.put("departure_offset", departure_offset(config, train))


measure_main(measure)
