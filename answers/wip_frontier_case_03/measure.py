"""frontier_case_03, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_03-5694cfb8c940728e

Calls the agent's code only through config.load_config("configs/herd26.toml", [train.seed=s, ...]) and
train.run(cfg), the README's `python train.py`. A global forward pre-hook finds the first module run forward
in training mode with gradients on (the model) and keeps, for each of its training forwards, the number of
exactly-zero inputs, the number of inputs and their sum of squares, with what run() printed
(families/compounding_augmentation.py). A second hook keeps the inputs of the model's last evaluation pass
(the held-out windows, as the model reads them). Then the same run is repeated on a copy of the exports
whose `state` column is shuffled within each farm (the same readings, other labels), and the inputs of its
last evaluation pass are kept too (on seed 0 only; on the other seeds the artifact repeats the first inputs):
a feature stage that reads no labels gives the same inputs.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.compounding_augmentation import run_recorded  # noqa: E402
from verifylib import import_workspace_module, is_training_model, measure_main, require  # noqa: E402

CONFIG = "configs/herd26.toml"  # train.py's default --config
EXPORTS = "data/exports"        # the config's export_dir
RELABEL_SEED = 0                # the relabelled rerun (label independence does not depend on the seed)


def eval_input_hook():
    """A global forward pre-hook keeping the inputs of the model's last evaluation pass. -> (handle, state)."""
    import torch

    state = {"model": None, "val": [], "training": True}

    def pre_hook(module, args):
        if state["model"] is None:
            if not is_training_model(module):
                return
            state["model"] = module
        if module is not state["model"] or not args or not torch.is_tensor(args[0]):
            return
        if module.training:
            state["training"] = True
            return
        if state["training"]:
            state["val"], state["training"] = [], False
        state["val"].append(args[0].detach().double().clone())

    handle = torch.nn.modules.module.register_module_forward_pre_hook(pre_hook)
    return handle, state


def last_eval_inputs(state):
    import torch

    return torch.cat(state["val"]) if state["val"] else torch.zeros(0, 0, dtype=torch.float64)


def shuffled_exports(seed):
    """A temporary copy of the exports with each farm's `state` column permuted (fixed seed)."""
    import csv
    import tempfile

    import numpy as np

    folder = Path(tempfile.mkdtemp(prefix="fc03_relabel_"))
    rng = np.random.default_rng(9000 + seed)
    for path in sorted(Path(EXPORTS).glob("*.csv")):
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        col = rows[0].index("state")
        states = [r[col] for r in rows[1:]]
        perm = rng.permutation(len(states))
        for r, k in zip(rows[1:], perm):
            r[col] = states[k]
        with open(folder / path.name, "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)
    return folder


def measure(seed, rec):
    import contextlib
    import io

    config = import_workspace_module("config")
    train = import_workspace_module("train")
    load_config, run_fn = require(config, "load_config"), require(train, "run")
    handle, state = eval_input_hook()
    try:
        run_recorded(rec, seed, load_config, run_fn, CONFIG)
    finally:
        handle.remove()
    val = last_eval_inputs(state)
    if seed != RELABEL_SEED:
        rec.save("val_inputs", {"val": val, "relabelled": val})
        return
    handle, relabelled = eval_input_hook()
    try:
        cfg = load_config(CONFIG, [f"train.seed={seed}", f"data.export_dir={shuffled_exports(seed)}"])
        with contextlib.redirect_stdout(io.StringIO()):
            run_fn(cfg)
    finally:
        handle.remove()
    rec.save("val_inputs", {"val": val, "relabelled": last_eval_inputs(relabelled)})


measure_main(measure)
