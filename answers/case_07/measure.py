"""case_07, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-c07-c58c4cab6120b23c

Runs the agent's train.train(Config(seed=s)) at the settings the README runs (all defaults:
8 epochs of 32 AdamW steps, validation every epoch, the final re-validation) and watches it
from outside the agent's code, with global module hooks and optimizer-step hooks:

- every outermost forward of a module is classified by what follows it: a forward whose
  output an optimizer step follows is a training forward, any other is a measuring
  (validation / inference) forward. For each one it records how many Dropout and BatchNorm
  calls ran in training mode or in eval mode, and whether the call changed any buffer;
- after the last optimizer step of every epoch (steps 32, 64, ...) the model's full
  state_dict (weights and BatchNorm buffers), as an artifact: the model that epoch's
  validation is meant to measure;
- for the first training batch of every epoch: the state before the forward, the input,
  the output and the buffers after it, as an artifact (the decider checks from these that
  training normalizes with batch statistics and applies dropout);
- the returned model's state_dict, the returned history's validation losses, the printed
  per-epoch and re-validated losses (and the printed text itself, which the decider compares
  with what `python train.py` printed on seed 0), and the Dropout/BatchNorm modules the model
  holds.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.validation_in_train_mode import watch_training  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402


def measure(seed, rec):
    def start():
        train = import_workspace_module("train")
        Config, train_fn = require(train, "Config", "train")
        cfg = Config(seed=seed)
        return cfg, lambda: train_fn(cfg)

    watch_training(rec, start, lambda cfg: int(getattr(cfg, "epochs", 0)), n_dropout=2, n_batchnorm=2)


measure_main(measure)
