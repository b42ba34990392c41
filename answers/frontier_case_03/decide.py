"""frontier_case_03, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_03-5694cfb8c940728e

Two independent defects. Layer A (dataset.py + augment.py): WindowDataset scales every window once into
one stored tensor and __getitem__ hands the augmentation self.x[i], a view of that tensor; CollarAugment
works in place (mul_, add_, masked assignment), so every draw's gain, noise and dropped readings are
written back and compound epoch after epoch, while the validation inputs are untouched. Layer B (data.py,
load_exports): the collars' pedometer column is a 16-bit cumulative register that wraps at 65,536 (visible
only in the data). load_exports turns it into steps per window with np.diff in int64 and treats a negative
difference as a collar restart (the window keeps the reading); every wrap is read as a restart, so the
window keeps only the steps after the wrap. About 30% of heat windows wrap (2-3x the steps), 13% of the
others. Every run is the README's `python train.py` at train.seed = s (12 epochs of 54 batches of 64).
Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- recomputed `every_epoch_trained`: >= 600 training forwards;
- recomputed `input_scale_stationary`: mean square of the training inputs (clipped at +-4), last quarter of
  training forwards / first quarter, <= 1.015 (broken 1.88-1.92 with tenths; gold 1.002-1.008; a fix that
  leaves only the gain in place 1.009-1.031, failing on two seeds of three; the statistic depends on the
  random stream only);
- recomputed `augmentation_still_applied`: early share of zero inputs in [0.015, 0.06];
- reported `balanced_accuracy` >= 0.886 and `alert_recall` (heat) >= 0.60 on the final printed lines
  (broken 0.838-0.852 and 0.39-0.44; A fixed alone = v0.4, 0.870-0.875 and 0.534-0.542; both fixed
  0.897-0.898 and 0.636);
- recomputed `steps_follow_the_register` (layer B's mechanism): the table's step column, against the
  register differences modulo 2**16 recomputed from the raw exports: >= 95% of the windows whose register
  went down carry the modular difference (broken 0%), >= 99% of the others the plain difference, and no
  window of the export is missing from the table (windows after a restart gap are not compared). Masking
  forms (the cow's usual count in rollover windows, dropping them, weighting heat) fail here.

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final line equal the seed-0 run measured
here, within 2e-4) and `readme_run_bal_acc` (>= 0.89).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.compounding_augmentation import decide_training, readme_checks  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "min_forwards": 600, "window_div": 4, "max_sq_ratio": 1.015,
    "dropout_share": (0.015, 0.06), "min_bal_acc": 0.886, "alarm_label": "heat", "min_alarm_recall": 0.60,
    "print_tol": 2e-4,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)
    down, up, missing = (m.number(k) for k in ("steps_wrapped_match", "steps_plain_match", "steps_windows_missing"))
    ok = down >= 0.95 and up >= 0.99 and missing == 0
    checks.check("steps_follow_the_register", ok, value=f"wrapped {down:.3f}, plain {up:.3f}, missing {missing:g}",
                 bound="wrapped >= 0.95, plain >= 0.99, missing 0", source="recomputed")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
