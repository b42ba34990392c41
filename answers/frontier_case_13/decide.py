"""frontier_case_13, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_13-bf5bc45bdf41626b

Two independent defects. Layer A (loader): loader.train_loader is rebuilt every epoch (the augmentation
warm-up) and re-seeds its torch.Generator with train.seed each time; DataLoader draws the shuffle and the
workers' base seed (hence every worker's numpy seed, through seed_worker or torch's own seeding) from
it, so every epoch replays the same order and the same augmentation of every map, and the model
memorizes the training maps (train accuracy 1.000, validation loss 0.60-0.64). Layer B (dataset
construction): wafers.last_tests, which removes the 9 re-tested wafers, keeps the last record of each lot
instead of each (lot, wafer), so every lot that sent several wafers to review keeps one: 297 of the 336
distinct wafers, scatter 24 of 48, edge-ring 33 of 48. Every run is the README's
`python train.py --config configs/cnn.toml` at train.seed = s. Checks per seed:

- reported `readme_config_trains`, `every_epoch_streams_the_training_maps` (>= 30 epochs of >= 336 rows,
  one training loss per training forward);
- recomputed `augmentation_differs_between_epochs`: <= 2% of the training inputs of epochs 4.. equal,
  bit for bit, an input of an earlier epoch (from epoch 3, after the warm-up); the replayed loader gives
  100%;
- recomputed `each_epoch_draws_a_new_order`: no two consecutive epochs present the training labels in
  the same order;
- reported `validation_loss_target`: the kept weights' validation loss <= 0.52 (the README's target);
- reported `scatter_recall`: scatter >= 0.68 (gold 0.74-0.75; A only 0.31-0.63);
- recomputed `every_reviewed_wafer_is_trained_on`: a one-epoch run of the same configuration with the
  augmentation off trains on at least 48 distinct inputs of every class (the export's distinct
  (lot, wafer) per class; broken: scatter 24, edge-ring 33). Keeping the 9 re-tests passes (they are
  duplicates); oversampling scatter does not (no new distinct inputs).

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
    "min_epochs": 30, "min_rows_per_epoch": 336,  # 336 distinct wafers (345 rows, 9 of them re-tests)
    "from_epoch": 3, "max_repeat_share": 0.02,
    "max_val_loss": 0.52,
    "min_recall": {"scatter": 0.68},
    "distinct_maps_per_class": {c: 48 for c in
                                ["none", "center", "edge-ring", "edge-loc", "scratch", "reticle", "scatter"]},
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
