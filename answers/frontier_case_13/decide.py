"""frontier_case_13, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_13-bf5bc45bdf41626b

Two independent defects. Layer A (loader): loader.train_loader is rebuilt every epoch (the augmentation
warm-up) and re-seeds its torch.Generator with train.seed each time; DataLoader draws the shuffle and the
workers' base seed (hence every worker's numpy seed, through seed_worker or torch's own seeding) from
it, so every epoch replays the same order and the same augmentation of every map, and the model
memorizes the training maps (train accuracy 1.000, validation loss 0.58-0.64, kept epoch 15-20 of 24).
Layer B (preprocess.to_grid): the die records (36 dies across a 150 mm wafer, 4 mm pitch) land on the
24 x 24 grid (6.25 mm cells) by the cell under each die centre, so 12 of every 24 rows/columns of cells
hold two dies; the cell is written by plain assignment (out[:, rows, cols] = ...), so the last die wins
and a failing die is overwritten by a passing neighbour: only about 4 in 9 isolated fails survive, dense
classes lose nothing. Scatter (isolated fails, 5-11% of the dies) is then taken for none (recall
0.38-0.50; 0.83-0.87 with both layers fixed). Every run is the README's
`python train.py --config configs/cnn.toml` at train.seed = s. Checks per seed:

- reported `readme_config_trains`, `every_epoch_streams_the_training_maps` (>= 24 epochs of >= 336 rows,
  one training loss per training forward);
- recomputed `augmentation_differs_between_epochs`: <= 2% of the training inputs of epochs 4.. equal,
  bit for bit, an input of an earlier epoch (from epoch 3, after the warm-up); the replayed loader gives
  100%;
- recomputed `each_epoch_draws_a_new_order`: no two consecutive epochs present the training labels in
  the same order;
- reported `validation_loss_target`: the kept weights' validation loss <= 0.42 (gold 0.28-0.33; A only
  0.48-0.53, B only 0.38-0.44);
- reported `scatter_recall`: scatter >= 0.70 (gold 0.83-0.87; A only 0.40-0.50);
- recomputed `every_failing_die_reaches_the_grid`: a one-epoch run of the same configuration with the
  augmentation off on a probe export (every training wafer fails exactly one die, each die position once,
  plus 8 wafers that fail none): at most 8 training inputs are identical (broken: about 560 single-fail
  wafers reach the model as a clean wafer). Max, any-fail, fail fraction or a collision-free mapping pass.

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
    "min_epochs": 24, "min_rows_per_epoch": 336,  # 336 distinct wafers (345 rows, 9 of them re-tests)
    "from_epoch": 3, "max_repeat_share": 0.02,
    "max_val_loss": 0.42,
    "min_recall": {"scatter": 0.70},
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
