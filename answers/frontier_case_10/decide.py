"""frontier_case_10, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_10-14b5c3a5df8eee69

Two independent defects. Layer A (train.build_datasets): random_split returns two Subsets of ONE
RecordDataset, and `val_set.dataset.transform = None` (meant for validation) clears the transform of that
shared object, so the training records are read without the BandJitter augmentation: the model sees the
same 2,080 inputs every epoch and overfits (training loss 0.002, validation loss 0.68-0.86 instead of v0.3's
0.34-0.37). Layer B (dataset.relative_band_power, called by RecordDataset): the band energies reach the model
only as log shares of each record's total (relative band power, documented as size-independent spectral
shape), so the record's size is gone from the inputs. Rockfall and tremor have nearly the same spectral shape
and differ in level at every station; with the size erased they are told apart only by rise and coda.
Every run is the README's `python train.py` at train.seed = s (50 epochs of 32 batches of 64). Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- recomputed `every_epoch_trained` (>= 100,000 training input rows) and `training_inputs_augmented`: the
  share of training inputs bit-identical to an earlier one <= 0.05 (broken 0.98; augmented 0.0);
- recomputed `validation_inputs_fixed`: the first and the last validation pass give bit-identical inputs
  (validation is not augmented);
- recomputed `inputs_carry_record_size`: the model's inputs of the last validation pass, each matched to its
  record by the gap feature (whichever column it is), and the record's log10 total band energy in ground
  motion (recomputed from the exports and the station sheet) regressed linearly on them: R^2 >= 0.75 over
  >= 200 matched rows (shares only ~0.36-0.42; shares + total 1.0; absolute ground-motion bands ~0.89);
- reported `val_loss` <= 0.45 on the last epoch line and `class_recall` (rockfall) >= 0.60 (a floor; the
  mechanism check carries layer B). Effect table in NOTES.md.

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final recall equal the seed-0 run
measured here, within 2e-4) and `readme_run_val_loss` (<= 0.45).
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
    "min_rows": 100_000, "max_replayed": 0.05, "max_val_loss": 0.45,
    "class_label": "rockfall", "min_recall": 0.60, "print_tol": 2e-4,
    "min_r2": 0.75, "min_matched": 200,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
