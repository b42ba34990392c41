"""hard_case_06, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-h06-5c1e0a7d92b4f318

Calls the agent's code only through config.load_config("configs/experiment.toml", overrides),
train.run(cfg, shards=None), data.load_shards (inside run, as the README runs it) and
data.iterate_batches (wrapped, on the data module and on every workspace module that holds the
same function). Per seed, runs:
- readme: run(load_config(experiment.toml, [train.seed=seed])), the README's `python train.py
  --config configs/experiment.toml` (3 epochs, batch 64);
- units: one epoch on the same export in other units (outdoor and setpoint temperatures in
  deg F, humidity as a fraction), passed as shards=;
- const_<v>_<k>: one epoch on the export with bldg-D's humidity set to the constant
  v * (1 + k) and bldg-A's setpoint to 21.7 * (1 + k) (a second dead sensor, in another
  column and building), for v in 0.1, 21.7 (not exact in float32) and k in 0, 1e-6, 2e-6;
- poison: one epoch on the export, with one raw value of the 3rd batch set to NaN.
(No run at a batch size the case never uses: every batch it runs holds 64 rows of one building.)
The variant datasets are built from this file's own copy of the case's CSV loader. Recorded
per run: whether train() raised, how many history rows and non-finite losses, the batches the
loader yielded (shard names, and whether every row of a batch is a row of the shard it
names), and as an artifact what the model received in every training forward: the input of
its first Linear layer (the model's input if it has none).
For the readme run it also records the loss and MAE of every history row and what train()
printed (the decider compares them with what the README's own command printed: seed 0 at
the defaults is that command's run).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.zero_spread_zscore import (  # noqa: E402
    input_recording_run, load_export, run_readme_and_variants)
from verifylib import import_workspace_module, measure_main, require, workspace_holders  # noqa: E402

CONFIG = "configs/experiment.toml"  # the README's --config


def measure(seed, rec):
    def start():
        config = import_workspace_module("config")
        train = import_workspace_module("train")
        data = import_workspace_module("data")
        load_config = require(config, "load_config")
        run_fn = require(train, "run")
        require(data, "load_shards")
        original_iter = require(data, "iterate_batches")

        def train_call(overrides, shards):
            cfg = load_config(CONFIG, [f"train.seed={seed}", "train.export_dir=",
                                       *(f"train.{k}={v}" for k, v in overrides.items())])
            return run_fn(cfg, shards=shards)

        return data, original_iter, train_call, lambda: workspace_holders("iterate_batches", original_iter, exclude=(data,))

    run = input_recording_run(rec, start)
    run_readme_and_variants(run, lambda: load_export("data"))


measure_main(measure)
