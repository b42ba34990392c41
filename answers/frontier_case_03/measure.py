"""frontier_case_03, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_03-5694cfb8c940728e

Calls the agent's code only through config.load_config("configs/herd26.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py`. A global forward pre-hook finds the first module run forward
in training mode with gradients on (the model) and keeps, for each of its training forwards, the number of
exactly-zero inputs, the number of inputs and their sum of squares, with what run() printed
(families/compounding_augmentation.py). Then it loads the table through train.load_exports, builds the model inputs through
train.model_inputs, and measures how well a linear discriminant on those inputs tells the herd manager's
lameness windows from her normal ones (layer B's mechanism: with each reading taken only relative to the cow's
median over the whole export, the lame cows' long episodes are in their own baseline).
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


def lameness_separation(config, train):
    """ROC AUC of a Fisher linear discriminant (fitted on every window, inputs standardized) separating the
    windows labelled lameness from those labelled normal, on the inputs the model trains and validates on
    (train.model_inputs of the whole table). -1 when the inputs cannot be built through train's names."""
    import numpy as np
    try:
        cfg = config.load_config(CONFIG, [])
        table = train.load_exports(cfg.data.export_dir)
        x = np.asarray(train.model_inputs(table), dtype=np.float64)
        classes = list(table.classes)
        y = np.asarray(table.labels)
        keep = (y == classes.index("normal")) | (y == classes.index("lameness"))
        x, lame = x[keep], y[keep] == classes.index("lameness")
        x = (x - x.mean(0)) / (x.std(0) + 1e-9)
        cov = np.cov(x[lame].T) + np.cov(x[~lame].T) + 1e-3 * np.eye(x.shape[1])
        score = x @ np.linalg.solve(cov, x[lame].mean(0) - x[~lame].mean(0))
        rank = score.argsort().argsort() + 1.0
        n1, n0 = lame.sum(), (~lame).sum()
        return float((rank[lame].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))
    except Exception:
        return -1.0


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    run_recorded(rec, seed, require(config, "load_config"), require(train, "run"), CONFIG)
    rec.put("lameness_auc", lameness_separation(config, train))


measure_main(measure)
