"""frontier_case_07, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-f07-de143537f11d4bc0

Runs the agent's train.run(train.make_config("configs/houses.toml", [...])) at the README's
settings (seed s, LeafMLP with dropout 0.5, 500 AdamW steps, validation every 50 steps, no frozen
encoder), watched from outside with global module hooks and an optimizer-step hook:

- for every Dropout and BatchNorm call under autograd, the mode it ran in;
- the first training forward after the first validation (step 51): the model's state_dict, the
  input, the global RNG state before it and the output, as an artifact;
- the inputs of the first validation's forwards (the features the model is scored on), as an artifact;
- the returned validation history (step, train loss/acc, val loss/acc) and the optimizer step count;
- then a short fit with the encoder frozen for its first 100 of 150 steps (validation at step 50, inside
  the warm start): the mode of every BatchNorm call whose parameters are frozen.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.mode_after_evaluation import watch_frozen_batchnorm, watch_training  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/houses.toml"
README_SETTINGS = ["trainer.steps=500", "eval.every=50", "model.dropout=0.5", "model.freeze_encoder_steps=0",
                   "model.name=mlp"]
PROBE_AFTER_STEPS = 50
WARM_START_SETTINGS = ["trainer.steps=150", "eval.every=50", "model.dropout=0.5", "model.freeze_encoder_steps=100",
                       "model.name=mlp", "output.dir=runs/verify_warm_start"]


def measure(seed, rec):
    def start():
        train = import_workspace_module("train")
        run_fn, make_config = require(train, "run", "make_config")
        cfg = make_config(CONFIG, [*README_SETTINGS, f"seed={seed}"])
        return lambda: run_fn(cfg, echo=False)

    watch_training(rec, start, PROBE_AFTER_STEPS)

    def start_warm():
        train = import_workspace_module("train")
        run_fn, make_config = require(train, "run", "make_config")
        cfg = make_config(CONFIG, [*WARM_START_SETTINGS, f"seed={seed}"])
        return lambda: run_fn(cfg, echo=False)

    watch_frozen_batchnorm(rec, start_warm)


measure_main(measure)
