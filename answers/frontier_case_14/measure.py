"""wip_frontier_case_14, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-wip_frontier_case_14-63650fbbfce09824

Runs the agent's train.run(train.make_config("configs/plant.toml", ["seed=s"])) at the README's
settings, with a global forward pre-hook that keeps the first validation's inputs (600 rows), then
probes the returned model: weights, two eval-mode forwards of 128 validation rows under different
RNG states, one training-mode forward with its RNG state (families/functional_dropout_mode.py).
A second pair of global hooks counts the rows of the top-level training-mode forwards with
gradients on during the fit (the rows trained on per epoch, whatever builds them).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.functional_dropout_mode import watch_fit  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/plant.toml"
N_VAL = 600


def counted(rec, fit):
    """``fit`` run with hooks that count the rows of top-level training forwards (gradients on)."""
    import torch
    from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook

    state = {"depth": 0, "rows": 0, "calls": 0}

    def pre(module, inputs):
        if (state["depth"] == 0 and module.training and torch.is_grad_enabled()
                and inputs and torch.is_tensor(inputs[0])):
            state["rows"] += int(inputs[0].shape[0])
            state["calls"] += 1
        state["depth"] += 1

    def post(module, inputs, output):
        state["depth"] -= 1

    def run():
        handles = [register_module_forward_pre_hook(pre), register_module_forward_hook(post, always_call=True)]
        try:
            out = fit()
        finally:
            for h in handles:
                h.remove()
        rec.put("training_rows_total", state["rows"])
        rec.put("training_forwards", state["calls"])
        rec.put("epochs_run", len(out["history"]))
        return out

    return run


def measure(seed, rec):
    def start():
        train = import_workspace_module("train")
        run_fn, make_config = require(train, "run", "make_config")
        cfg = make_config(CONFIG, [f"seed={seed}", "output.dir=runs/verify"])
        return counted(rec, lambda: run_fn(cfg, echo=False))

    watch_fit(rec, start, N_VAL)


measure_main(measure)
