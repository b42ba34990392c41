"""frontier_case_10, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_10-14b5c3a5df8eee69

Two independent defects. Layer A (train.build_datasets): random_split returns two Subsets of ONE
RecordDataset, and `val_set.dataset.transform = None` (meant for validation) clears the transform of that
shared object, so the training records are read without the BandJitter augmentation: the model sees the
same 2,080 inputs every epoch and overfits (training loss 0.004, validation loss climbing to 0.74-0.76
instead of v0.3's 0.29-0.31). Layer B (catalog.load_exports + dataset.derived_features):
the export's columns after the label are read as Python floats and made into the table with torch.tensor(values),
float32 by default. The onset / peak / end columns are the digitizer's running sample numbers (1.15e9-2.08e9),
where float32 spacing is 128 samples, so the rise (peak - onset) and coda (end - peak) the generic derived step
takes are off by up to 126 samples (rms ~54). Rockfall and tremor, told apart mainly by a few seconds of rise
and coda, suffer most (every station, every split). Every run is the README's
`python train.py` at train.seed = s (50 epochs of 32 batches of 64). Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- recomputed `every_epoch_trained` (>= 100,000 training input rows) and `training_inputs_augmented`: the
  share of training inputs bit-identical to an earlier one <= 0.05 (broken 0.98; augmented 0.0);
- recomputed `inputs_match_raw_records`: the model's inputs of the last validation pass, each matched to its
  record by the gap feature, regressed feature by feature on the record's own features recomputed from the
  data files alone (bands minus its own station's sensitivity; the derived differences taken on the exports'
  values in float64): smallest R^2 >= 0.999 over >= 200 matched rows (float64 table 1.0; broken ~0.73);
- reported `val_loss` <= 0.36 on the last epoch line and `class_recall` (rockfall) >= 0.50 (a floor; the
  mechanism check carries layer B). Effect table in NOTES.md.

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final recall equal the seed-0 run
measured here, within 2e-4) and `readme_run_val_loss` (<= 0.36).
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
    "min_rows": 100_000, "max_replayed": 0.05, "max_val_loss": 0.36,
    "class_label": "rockfall", "min_recall": 0.50, "print_tol": 2e-4,
    "min_r2": 0.999, "min_matched": 200,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
