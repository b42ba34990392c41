"""hard_case_07, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-h07-bca20cbe945072fc

Runs the agent's train.run(train.make_config("configs/experiment.toml", ["seed=<s>"])), the
configuration the README runs (SpectralCNN, 8 epochs of 32 AdamW steps, batched validation
every epoch, three re-validations at the end), and watches it from outside the agent's code,
with global module hooks and optimizer-step hooks:

- every outermost forward of a module is classified by what follows it: a forward whose
  output an optimizer step follows is a training forward, any other is a measuring
  (validation / inference) forward. For each one it records how many Dropout and BatchNorm
  calls ran in training mode or in eval mode, whether the call changed any buffer, and the
  batch size of its input;
- after the last optimizer step of every epoch (steps 32, 64, ...) the model's full
  state_dict (weights and BatchNorm buffers), as an artifact: the model that epoch's
  validation is meant to measure;
- for the first training batch of every epoch: the state before the forward, the input,
  the output and the buffers after it, as an artifact;
- the returned model's state_dict, the returned history's validation losses, the printed
  per-epoch and re-validated losses (and the printed text), the configuration's validation
  mode and batch size, and the Dropout/BatchNorm modules the model holds.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.validation_in_train_mode import watch_training  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/experiment.toml"
N_DROPOUT, N_BATCHNORM = 2, 3  # SpectralCNN: two Dropout layers, three BatchNorm1d layers


def measure(seed, rec):
    def start():
        train = import_workspace_module("train")
        run_fn, make_config = require(train, "run", "make_config")
        cfg = make_config(CONFIG, [f"seed={seed}"])
        return cfg, lambda: run_fn(cfg)

    def configured(cfg):
        trainer_cfg, eval_cfg = getattr(cfg, "trainer", None), getattr(cfg, "eval", None)
        epochs = int(getattr(trainer_cfg, "epochs", 0))
        rec.put("eval_mode", str(getattr(eval_cfg, "mode", "")))
        rec.put("eval_batch_size", int(getattr(eval_cfg, "batch_size", 0)))
        return epochs

    watch_training(rec, start, configured, N_DROPOUT, N_BATCHNORM, record_batch_sizes=True)


measure_main(measure)
