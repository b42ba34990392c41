"""frontier_case_10, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_10-14b5c3a5df8eee69

Two independent defects. Layer A (train.build_datasets): random_split returns two Subsets of ONE
RecordDataset, and `val_set.dataset.transform = None` (meant for validation) clears the transform of that
shared object, so the training records are read without the BandJitter augmentation: the model sees the
same 2,080 inputs every epoch and overfits (training loss 0.004, validation loss climbing to 0.74-0.76
instead of v0.3's 0.29-0.31). Layer B (catalog.read_envelopes / moving_average): each pick's envelope is
an STA/LTA ratio computed with the running-sum trick, np.cumsum over the station's whole amplitude file, whose
samples np.load returns as float32 (the boxes' format). The samples carry a DC offset of 2.7-3.9e4 counts and
each file holds 190,000-270,000 of them, so the running sum reaches 5e9-1e10, where float32 spacing is 512-
1024 counts: the window differences late in each file are off by up to a few hundred counts, as large as a
small rockfall's or tremor's rise above the pre-pick level. Rockfall and tremor, told apart only by their
envelopes, suffer most (every station, every split). Every run is the README's
`python train.py` at train.seed = s (50 epochs of 32 batches of 64). Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- recomputed `every_epoch_trained` (>= 100,000 training input rows) and `training_inputs_augmented`: the
  share of training inputs bit-identical to an earlier one <= 0.05 (broken 0.98; augmented 0.0);
- recomputed `inputs_match_raw_records`: the model's inputs of the last validation pass, each matched to its
  record by the gap feature, regressed feature by feature on the record's own features recomputed from the
  data files alone (bands minus its own station's sensitivity; the envelope recomputed in float64 with each
  window summed directly): smallest R^2 >= 0.999 over >= 200 matched rows (float64 or direct sums 1.0; the
  median taken off first 0.999998; broken 0.59; clipping or smoothing far lower);
- reported `val_loss` <= 0.26 on the last epoch line (broken 0.74-0.76; A fixed 0.29-0.31; B fixed alone
  0.45-0.58; gold 0.20-0.22) and `class_recall` (rockfall) >= 0.70 (gold 0.80-0.84; A fixed 0.56-0.61).

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final recall equal the seed-0 run
measured here, within 2e-4) and `readme_run_val_loss` (<= 0.26).
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
