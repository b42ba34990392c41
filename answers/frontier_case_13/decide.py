"""frontier_case_13, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_13-bf5bc45bdf41626b

Two independent defects. Layer A (loader): loader.train_loader is rebuilt every epoch (the augmentation
warm-up) and re-seeds its torch.Generator with train.seed each time; DataLoader draws the shuffle and the
workers' base seed (hence every worker's numpy seed, through seed_worker or torch's own seeding) from
it, so every epoch replays the same order and the same augmentation of every map, and the model
memorizes the 345 training maps (train loss 0.03, validation loss 0.45-0.51). Layer B (preprocessing):
preprocess.prepare area-resamples the 24 x 24 bin maps to a 12 x 12 grid (data.grid), averaging every
2 x 2 block of dies, which erases the every-other-line failures that tell reticle from scatter. Every run
is the README's `python train.py --config configs/cnn.toml` at train.seed = s. Checks per seed:

- reported `readme_config_trains`, `every_epoch_streams_the_training_maps` (>= 30 epochs of >= 336 rows,
  one training loss per training forward);
- recomputed `augmentation_differs_between_epochs`: <= 2% of the training inputs of epochs 4.. equal,
  bit for bit, an input of an earlier epoch (from epoch 3, after the warm-up); the replayed loader gives
  100%;
- recomputed `each_epoch_draws_a_new_order`: no two consecutive epochs present the training labels in
  the same order;
- reported `validation_loss_target`: the kept weights' validation loss <= 0.40 (the README's target);
- reported `reticle_and_scatter_recall`: reticle >= 0.88 and scatter >= 0.70;
- recomputed `block_structure_reaches_the_model`: in a one-epoch run on a probe export (the validation
  maps interleaved with twins whose dies (y, 2k) and (y, 2k+1) are exchanged), no twin reaches the model
  as the same input as its map, beyond the maps the exchange leaves unchanged (the 12 x 12 grid merges
  every pair).

Then, on what the README's own command printed (source readme_run; code that is fixed only under the
verifier fails): `readme_run_matches_measured_report` (kept epoch, validation
loss and accuracy, per-class recalls equal the seed-0 run's within 2 units of the last printed digit).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.replayed_augmentation import decide_training, readme_checks  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "classes": ["none", "center", "edge-ring", "edge-loc", "scratch", "reticle", "scatter"],
    "min_epochs": 30, "min_rows_per_epoch": 336,  # 345 training maps, 336 without the 9 re-exported ones
    "from_epoch": 3, "max_repeat_share": 0.02,
    "max_val_loss": 0.40,
    "min_recall": {"reticle": 0.88, "scatter": 0.70},
    "val_maps": 700, "max_merged_pairs": 0,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
