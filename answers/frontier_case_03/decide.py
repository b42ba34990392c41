"""frontier_case_03, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_03-5694cfb8c940728e

Two independent defects. Layer A (dataset.py + augment.py): WindowDataset scales every window once into
one stored tensor and __getitem__ hands the augmentation self.x[i], a view of that tensor; CollarAugment
works in place (mul_, add_, masked assignment), so every draw's gain, noise and dropped readings are
written back and compound epoch after epoch, while the validation inputs are untouched. Layer B (data.py read_export + features.readings): every farm's export is cast to a
tensor by one generic line, torch.tensor of the rows' Python floats, which is float32 by default; one of the
columns, moves_total, is the collar's running motion count (4e6-3e7: collars are refurbished and refitted,
so the counts start anywhere), and the model receives it as the change since the cow's previous window
(features.readings, the generic step for every '*_total' column). float32's spacing there is 0.5-2, so the
window's count (about 40, lameness 2 lower, window noise 0.5) is rounded by up to 2 on every farm alike, and
lame and sound windows blur. Every run is the README's `python train.py` at
train.seed = s (12 epochs of 55 batches of 64).
Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- recomputed `every_epoch_trained`: >= 600 training forwards;
- recomputed `input_scale_stationary`: mean square of the training inputs (clipped at +-4), last quarter of
  training forwards / first quarter, <= 1.015 (broken 1.88-1.92 with tenths; gold 1.002-1.008; a fix that
  leaves only the gain in place 1.009-1.031, failing on two seeds of three; the statistic depends on the
  random stream only);
- recomputed `augmentation_still_applied`: early share of zero inputs in [0.015, 0.06];
- reported `balanced_accuracy` >= 0.845 and `alert_recall` (heat) >= 0.62 on the final printed lines
  (broken 0.804-0.823 and 0.559-0.576; A fixed alone = v0.4, 0.855-0.861 and 0.678-0.703; B fixed alone
  0.833-0.845 and 0.559-0.576; both fixed 0.865-0.880 and 0.678-0.695);
- recomputed `motion_count_follows_the_export` (layer B's mechanism): the moves_total column of the model
  inputs against the change since the cow's previous window recomputed in float64 from the raw exports:
  >= 98% of the windows within 0.05 (broken 14%, gold 100%), and no window of the export missing. Masking
  forms (a lameness-weighted loss, dropping the column, .double() after the float32 tensor) fail here.

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final line equal the seed-0 run measured
here, within 2e-4) and `readme_run_bal_acc` (>= 0.845).
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
    "dropout_share": (0.015, 0.06), "min_bal_acc": 0.845, "alarm_label": "heat", "min_alarm_recall": 0.62,
    "print_tol": 2e-4,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)
    share, missing = (m.number(k) for k in ("motion_match", "motion_windows_missing"))
    ok = share >= 0.98 and missing == 0
    checks.check("motion_count_follows_the_export", ok, value=f"within 0.05 {share:.3f}, missing {missing:g}",
                 bound="within >= 0.98, missing 0", source="recomputed")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
