"""frontier_case_10, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_10-14b5c3a5df8eee69

Two independent defects. Layer A (train.build_datasets): random_split returns two Subsets of ONE
RecordDataset, and `val_set.dataset.transform = None` (meant for validation) clears the transform of that
shared object, so the training records are read without the BandJitter augmentation: the model sees the
same 2,080 inputs every epoch and overfits (training loss 0.0006, validation loss climbing to 0.76-0.92
instead of v0.3's 0.42-0.44). Layer B (catalog.read_envelopes): each record's envelope samples are
resampled onto the 1 s grid with np.interp(grid, t, v) in the order the station's file lists them; SUM's
acquisition box re-sends a few packets of most records after the rest of the record, so those records' time
stamps are not increasing, and np.interp (which assumes increasing xp and does not check) returns wrong
values over the tail of the record (a decaying rockfall looks sustained, like tremor). Rockfalls, mostly
picked at SUM and told from tremor by their envelope, suffer most. Every run is the README's
`python train.py` at train.seed = s (50 epochs of 32 batches of 64). Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- recomputed `every_epoch_trained` (>= 100,000 training input rows) and `training_inputs_augmented`: the
  share of training inputs bit-identical to an earlier one <= 0.05 (broken 0.98; augmented 0.0);
- recomputed `inputs_match_raw_records`: the model's inputs of the last validation pass, each matched to its
  record by the gap feature, regressed feature by feature on the record's own features recomputed from the
  data files alone (bands minus its own station's sensitivity; the envelope resampled in float64 from its
  samples sorted by time): smallest R^2 >= 0.999 over >= 200 matched rows (any sorting fix 1.0; broken
  0.72; clipping, dropping the late samples or the station far lower or unmatched);
- reported `val_loss` <= 0.37 on the last epoch line (broken 0.76-0.92; A fixed 0.42-0.44; B fixed alone
  0.44-0.49; gold 0.30-0.33) and `class_recall` (rockfall) >= 0.70 (gold 0.73-0.84).

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final recall equal the seed-0 run
measured here, within 2e-4) and `readme_run_val_loss` (<= 0.37).
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
    "min_rows": 100_000, "max_replayed": 0.05, "max_val_loss": 0.26,
    "class_label": "rockfall", "min_recall": 0.70, "print_tol": 2e-4,
    "min_r2": 0.999, "min_matched": 200,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
