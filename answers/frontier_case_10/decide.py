"""frontier_case_10, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_10-14b5c3a5df8eee69

Two independent defects. Layer A (train.build_datasets): random_split returns two Subsets of ONE
RecordDataset, and `val_set.dataset.transform = None` (meant for validation) clears the transform of that
shared object, so the training records are read without the BandJitter augmentation: the model sees the
same 2,080 inputs every epoch and overfits (training loss 0.11, validation loss climbing to 0.86-0.89
instead of v0.3's 0.54-0.56). Layer B (dataset + response): StationResponse looks up each record's
sensitivity in the table's row order (the exports, station by station) and subtracts it by position, while
RecordDataset hands it the band energies already re-ordered by pick time, so nearly every record is
converted with another record's station sensitivity (SUM's broadband gain lands on other stations' records
and SUM's records get short-period gains); rockfalls, mostly picked at SUM and CRT and told from tremor by
their level, suffer most. Every run is the README's `python train.py` at train.seed = s (50 epochs of 32
batches of 64). Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- recomputed `every_epoch_trained` (>= 100,000 training input rows) and `training_inputs_augmented`: the
  share of training inputs bit-identical to an earlier one <= 0.05 (broken 0.98; augmented 0.0);
- recomputed `inputs_in_ground_motion`: the model's inputs of the last validation pass, each matched to its
  record by the gap feature, regressed band by band on the record's own counts minus its own station's
  sensitivity (computed from the data files alone): smallest R^2 >= 0.999 over >= 200 matched rows
  (gold 1.0; misaligned sensitivities far lower);
- reported `val_loss` <= 0.62 on the last epoch line (broken 0.86-0.89; A fixed 0.54-0.56; gold 0.57-0.58)
  and `class_recall` (rockfall) >= 0.685 (broken 0.57-0.63; A fixed 0.64-0.65; gold 0.71-0.73).

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final recall equal the seed-0 run
measured here, within 2e-4) and `readme_run_val_loss` (<= 0.62).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.shared_split_transform import decide_training, readme_checks  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "min_rows": 100_000, "max_replayed": 0.05, "max_val_loss": 0.62,
    "class_label": "rockfall", "min_recall": 0.685, "print_tol": 2e-4,
    "min_r2": 0.999, "min_matched": 200,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
