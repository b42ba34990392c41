"""case_06, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-c06-e9673773c4ac52b2

Calls the agent's code only through train.Config, train.train(cfg, shards=None),
data.load_shards (inside train, as the README runs it) and data.iterate_batches (wrapped,
on the data module and wherever train holds the same function). Per seed, runs:
- readme: train(Config(seed=seed)), the README's `python train.py` (3 epochs, batch 64);
- units: one epoch on the same export in other units (outdoor and setpoint temperatures in
  deg F, humidity as a fraction), passed as shards=;
- const_<v>_<k>: one epoch on the export with bldg-D's humidity set to the constant
  v * (1 + k) and bldg-A's setpoint to 21.7 * (1 + k) (a second dead sensor, in another
  column and building), for v in 0.1, 21.7 (not exact in float32) and k in 0, 1e-6, 2e-6;
- poison: one epoch on the export, with one raw value of the 3rd batch set to NaN;
- dead_first: one epoch of the README's command at another seed, one whose first batch is
  bldg-D's (its humidity column has no spread): the 1st, 2nd, 3rd such seed above 2 for the
  verifier's 0, 1, 2 (7, 17, 22), found with the case's shard order rule (this file's copy).
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
from families.zero_spread_zscore import input_recording_run, load_export, run_readme_and_variants  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402


def dead_first_seed(names, index):
    """The index-th seed above 2 at which the case's iterate_batches streams bldg-D first (its
    epoch-0 shard order: randperm over the shards, generator seeded seed * 100)."""
    import torch

    found = [s for s in range(3, 1000)
             if names[torch.randperm(len(names), generator=torch.Generator().manual_seed(s * 100))[0]] == "bldg-D"]
    return found[index]


def measure(seed, rec):
    Config = None

    def start():
        nonlocal Config
        train = import_workspace_module("train")
        data = import_workspace_module("data")
        Config, train_fn = require(train, "Config", "train")
        require(data, "load_shards")
        original_iter = require(data, "iterate_batches")

        def train_call(overrides, shards):
            return train_fn(Config(**{"seed": seed, **overrides}), shards=shards)

        def other_holders():  # train's own name for the loader, when it imported the function
            return [train] if getattr(train, "iterate_batches", None) is original_iter else []

        return data, original_iter, train_call, other_holders

    run = input_recording_run(rec, start)
    run_readme_and_variants(run, lambda: load_export(Config().data_dir))
    names = [s["name"] for s in load_export(Config().data_dir)]
    run("dead_first", {"epochs": 1, "seed": dead_first_seed(names, seed)}, None, None)


measure_main(measure)
